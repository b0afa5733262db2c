// What the page keeps for the tab only (sessionStorage): the control token and the session shown.

export const TOKEN_STORAGE = 'petstore-mock.control-token';
export const SESSION_STORAGE = 'petstore-mock.session';
export const DEFAULT_SESSION_STORAGE = 'petstore-mock.default-session';

export function readStorage(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStorage(key: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    // Storage disabled: the value lives as long as the page, which is still "the tab only".
  }
}
