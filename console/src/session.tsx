/**
 * The signed-in session: the token the user pasted, kept in sessionStorage only (gone with the
 * tab, never in a URL or localStorage), its scope (a tenant's token, or the operator's admin token
 * that sees monitoring only), and the typed client that sends it.
 */

import { type ChronosClient, createChronosClient } from '@chronos/client';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';

export type Scope = 'tenant' | 'admin';

interface StoredSession {
  token: string;
  scope: Scope;
}

export interface Session extends StoredSession {
  client: ChronosClient;
}

interface SessionState {
  session: Session | undefined;
  signIn(stored: StoredSession): void;
  signOut(): void;
}

const STORAGE_KEY = 'chronos.session';

/** The API is the console's own origin (the local gateway, or CloudFront's `/v1/*` on AWS). */
export function clientFor(token: string): ChronosClient {
  return createChronosClient({ baseUrl: window.location.origin, token, retry: { maxRetries: 1, maxDelayMs: 5_000 } });
}

function readStored(): StoredSession | undefined {
  try {
    const raw = window.sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as Partial<StoredSession>;
    if (typeof parsed.token !== 'string' || (parsed.scope !== 'tenant' && parsed.scope !== 'admin')) return undefined;
    return { token: parsed.token, scope: parsed.scope };
  } catch {
    return undefined;
  }
}

const SessionContext = createContext<SessionState | undefined>(undefined);

export function SessionProvider({ children, onSignOut }: { children: ReactNode; onSignOut: () => void }) {
  const [stored, setStored] = useState<StoredSession | undefined>(readStored);
  const signIn = useCallback((next: StoredSession) => {
    window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    setStored(next);
  }, []);
  const signOut = useCallback(() => {
    window.sessionStorage.removeItem(STORAGE_KEY);
    setStored(undefined);
    onSignOut();
  }, [onSignOut]);
  const value = useMemo<SessionState>(
    () => ({ session: stored && { ...stored, client: clientFor(stored.token) }, signIn, signOut }),
    [stored, signIn, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSessionState(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSessionState outside SessionProvider');
  return state;
}

/** The signed-in session; only called below RequireSession, which guarantees one. */
export function useSession(): Session {
  const { session } = useSessionState();
  if (!session) throw new Error('useSession without a session (render it below RequireSession)');
  return session;
}
