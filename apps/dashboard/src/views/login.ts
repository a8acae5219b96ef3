import type { OperatorOverview } from '@cryptocheckout/core';
import { ApiError, type OperatorApi } from '../api.js';
import type { ElementBuilder } from '../dom.js';
import { ALERT_ID } from './shell.js';

/** Shown when the server refuses the token typed at sign-in. */
export const WRONG_TOKEN_MESSAGE =
  'That token is not right. It was printed when the server first started, and is stored in <data dir>/operator-token.';

export interface LoginOptions {
  h: ElementBuilder;
  /** A client that sends `token`, to check it before keeping it. */
  apiFor(token: string): OperatorApi;
  setAlert(message: string | null): void;
  /** The token was accepted. */
  onSignedIn(token: string, overview: OperatorOverview): void;
  /** A quiet note above the form ("You are signed out."). */
  note?: string;
}

export interface LoginView {
  element: HTMLElement;
  /** The token field, focused when the view opens. */
  field: HTMLInputElement;
  destroy(): void;
}

/** The sign-in form: one password-type field for the operator token. */
export function loginView(options: LoginOptions): LoginView {
  const { h } = options;
  const requests = new AbortController();
  const field = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'token-hint',
  });
  const submit = h('button', { type: 'submit', class: 'btn btn--primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'login', novalidate: true },
    h('label', { for: 'token' }, 'Operator token'),
    field,
    h(
      'p',
      { id: 'token-hint', class: 'hint' },
      'The server printed it when it first started; it is kept in the file operator-token in its data directory.',
    ),
    submit,
  );
  const element = h(
    'section',
    { class: 'view view--login' },
    h('h1', { tabindex: -1 }, 'Sign in'),
    options.note ? h('p', { class: 'note', role: 'status' }, options.note) : null,
    form,
  );

  const refuse = (message: string) => {
    options.setAlert(message);
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-describedby', `${ALERT_ID} token-hint`);
    field.focus();
    field.select();
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (submit.disabled) return;
    const token = field.value.trim();
    if (!token) {
      refuse('Enter the operator token.');
      return;
    }
    submit.disabled = true;
    form.setAttribute('aria-busy', 'true');
    options
      .apiFor(token)
      .overview(requests.signal)
      .then(
        (overview) => {
          if (!requests.signal.aborted) options.onSignedIn(token, overview);
        },
        (error: unknown) => {
          if (requests.signal.aborted) return;
          if (error instanceof ApiError && error.unauthorized) refuse(WRONG_TOKEN_MESSAGE);
          else refuse(error instanceof Error ? error.message : String(error));
        },
      )
      .finally(() => {
        submit.disabled = false;
        form.removeAttribute('aria-busy');
      });
  });

  return { element, field, destroy: () => requests.abort() };
}
