// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { Session, sessionStorageOf, TOKEN_KEY } from './session.js';

afterEach(() => {
  sessionStorage.clear();
  localStorage.clear();
});

describe('Session', () => {
  it('keeps the token in sessionStorage only, never in localStorage or a cookie', () => {
    const session = new Session(sessionStorageOf(window));
    expect(session.token).toBeNull();
    session.signIn('operator-secret');
    expect(sessionStorage.getItem(TOKEN_KEY)).toBe('operator-secret');
    expect(new Session(sessionStorageOf(window)).token).toBe('operator-secret');
    expect(localStorage.length).toBe(0);
    expect(document.cookie).toBe('');
    session.signOut();
    expect(session.token).toBeNull();
    expect(sessionStorage.getItem(TOKEN_KEY)).toBeNull();
  });

  it('still works for the page’s lifetime when the browser refuses storage', () => {
    const refusing = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('SecurityError');
      },
      removeItem: () => {
        throw new Error('SecurityError');
      },
    } as unknown as Storage;
    const session = new Session(refusing);
    session.signIn('t');
    expect(session.token).toBe('t');
    session.signOut();
    expect(session.token).toBeNull();
  });
});
