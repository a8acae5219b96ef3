/**
 * The operator token for this tab. Kept in sessionStorage only: it ends with the tab, is never sent
 * as a cookie (so no cross-site request can carry it) and is not left behind in localStorage.
 */

/** sessionStorage key of the token. */
export const TOKEN_KEY = 'cryptocheckout.operator-token';

export class Session {
  // Fallback when the browser refuses storage (private modes, sandboxed frames): the tab still works.
  private memory: string | null = null;

  constructor(private readonly storage: Storage | null) {}

  /** The signed-in token, or null. */
  get token(): string | null {
    try {
      return this.storage?.getItem(TOKEN_KEY) ?? this.memory;
    } catch {
      return this.memory;
    }
  }

  signIn(token: string): void {
    this.memory = token;
    try {
      this.storage?.setItem(TOKEN_KEY, token);
    } catch {
      // Kept in memory only; a reload asks again.
    }
  }

  signOut(): void {
    this.memory = null;
    try {
      this.storage?.removeItem(TOKEN_KEY);
    } catch {
      // Nothing stored.
    }
  }
}

/** The window's sessionStorage, or null where the browser forbids it. */
export function sessionStorageOf(win: Window): Storage | null {
  try {
    return win.sessionStorage;
  } catch {
    return null;
  }
}
