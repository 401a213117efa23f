import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, setCsrfToken, unwrap, whenSignedOut, type Schemas } from './api';

type Session = Schemas['ConsoleSession'];

interface SessionState {
  session: Session | null;
  loading: boolean;
  signIn(apiKey: string): Promise<void>;
  signInWithLink(token: string): Promise<void>;
  signOut(): Promise<void>;
  can(permission: string): boolean;
}

const SessionContext = createContext<SessionState | null>(null);

/** The console session: read from the cookie on load (GET /api/session), never from storage. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(null);
  const [loading, setLoading] = useState(true);
  const queryClient = useQueryClient();

  const adopt = (s: Session | null) => {
    setCsrfToken(s?.csrfToken ?? null);
    setSession(s);
    if (!s) queryClient.clear();
  };

  useEffect(() => {
    whenSignedOut(() => adopt(null));
    api
      .GET('/api/session')
      .then(({ data }) => adopt(data ?? null))
      .catch(() => adopt(null))
      .finally(() => setLoading(false));
  }, []);

  const value: SessionState = {
    session,
    loading,
    async signIn(apiKey) {
      adopt(await unwrap(api.POST('/api/session', { body: { apiKey } })));
    },
    async signInWithLink(token) {
      adopt(await unwrap(api.POST('/api/session/link', { body: { token } })));
    },
    async signOut() {
      await api.DELETE('/api/session');
      adopt(null);
    },
    can: (permission) => session?.permissions.includes(permission) ?? false,
  };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}
