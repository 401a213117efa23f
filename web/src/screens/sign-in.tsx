import { useEffect, useState, type FormEvent } from 'react';
import { useSession } from '../session';

/**
 * Sign in with an API key (exchanged for a session cookie, then forgotten) or with a one-time
 * link from `rampart admin login-link` (its token is in the URL fragment, never sent to a server
 * by the browser, and removed from the address bar before it is used), or through one of the
 * organization's identity providers (a plain link: the server redirects to the provider).
 */
export function SignIn({ theme, toggleTheme }: { theme: string; toggleTheme: () => void }) {
  const { signIn, signInWithLink } = useSession();
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [providers, setProviders] = useState<Array<{ id: string; name: string; loginUrl: string }>>([]);
  const [apiKeySignIn, setApiKeySignIn] = useState(true);

  // The organization's identity providers (public: names and where each sign-in starts). The
  // organization is the one of the sign-in address (`?organization=`, shown in its settings);
  // without it the server answers the installation's only organization, if it has just one.
  useEffect(() => {
    const organization = new URLSearchParams(location.search).get('organization');
    const query = organization ? `?organizationId=${encodeURIComponent(organization)}` : '';
    fetch(`/auth/oidc/providers${query}`, { credentials: 'same-origin' })
      .then((r) => (r.ok ? r.json() : { identityProviders: [], apiKeySignIn: true }))
      .then((body: { identityProviders: Array<{ id: string; name: string; loginUrl: string }>; apiKeySignIn: boolean }) => {
        setProviders(body.identityProviders);
        setApiKeySignIn(body.apiKeySignIn);
      })
      .catch(() => setProviders([]));
  }, []);

  useEffect(() => {
    const link = /^#link=(rml_[A-Za-z0-9_-]+)$/.exec(location.hash)?.[1];
    if (!link) return;
    history.replaceState(null, '', location.pathname);
    setBusy(true);
    signInWithLink(link).catch((e: Error) => setError(e.message)).finally(() => setBusy(false));
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(apiKey.trim());
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setApiKey('');
      setBusy(false);
    }
  };

  return (
    <main id="main" className="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Rampart</h1>
        {providers.map((p) => (
          <a key={p.id} className="button" href={p.loginUrl}>Sign in with {p.name}</a>
        ))}
        {providers.length > 0 && apiKeySignIn && <p className="hint">or with an API key:</p>}
        {apiKeySignIn ? (
          <>
            <label className="field">
              <span>API key</span>
              <input type="password" autoComplete="off" name="apiKey" value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder="rmp_…" required />
            </label>
            <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
          </>
        ) : (
          <p className="hint">Your organization signs people in through its identity provider: API-key sign-in to the console is off.</p>
        )}
        {error && <p className="error" role="alert">{error}</p>}
        {apiKeySignIn && <p className="hint">The key is exchanged for a session and not kept by the browser. An operator can also run <code>rampart admin login-link --email you@example.com</code> for a one-time link.</p>}
        <button type="button" className="link" onClick={toggleTheme}>{theme === 'dark' ? 'Light theme' : 'Dark theme'}</button>
      </form>
    </main>
  );
}
