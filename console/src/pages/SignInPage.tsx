/**
 * Sign-in: paste a token. The console asks the API what the token may do — a tenant's token sees its
 * own tenant, the operator's admin token every tenant's monitoring — and keeps it for this tab only.
 */
import { type FormEvent, useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../api/result.ts';
import { safeNext } from '../safe-next.ts';
import { clientFor, type Scope, useSessionState } from '../session.tsx';

/**
 * The token's scope, from the one route both scopes may call (no refused call in the browser's
 * log): the stats answer for the caller's tenant, or for every tenant (`*`) to the admin token.
 */
async function scopeOf(token: string): Promise<Scope | string> {
  const stats = await clientFor(token).monitoring.stats({ window: '5m' });
  if (!stats.error) return stats.data.scope === '*' ? 'admin' : 'tenant';
  if (stats.error.status === 401 || stats.error.status === 403) return 'This token is not accepted.';
  return errorMessage(stats.error);
}

/** Only same-app paths are followed after sign-in (never another origin). */
const nextOf = (params: URLSearchParams) => safeNext(params.get('next'), window.location.origin);

export function SignInPage() {
  const { session, signIn } = useSessionState();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  if (session) return <Navigate to={nextOf(params)} replace />;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = token.trim();
    if (!trimmed) return setProblem('Paste a token first.');
    setBusy(true);
    setProblem(undefined);
    const scope = await scopeOf(trimmed).catch((error: unknown) => errorMessage(error));
    setBusy(false);
    if (scope !== 'tenant' && scope !== 'admin') return setProblem(scope);
    signIn({ token: trimmed, scope });
    navigate(scope === 'admin' ? '/health' : nextOf(params), { replace: true });
  }

  return (
    <main className="mx-auto mt-24 max-w-md rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <h1 className="mb-1 text-xl font-semibold">Sign in to Chronos</h1>
      <p className="mb-4 text-sm text-slate-600">
        Paste a tenant token (or the operator token). It stays in this browser tab only and is forgotten when you sign
        out or close the tab.
      </p>
      <form onSubmit={submit} noValidate>
        <label htmlFor="token" className="block text-sm font-medium">
          API token
        </label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          value={token}
          onChange={(event) => setToken(event.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'token-problem' : undefined}
          className="mt-1 w-full rounded border border-slate-300 px-2 py-1.5 font-mono text-sm"
        />
        {problem && (
          <p id="token-problem" role="alert" className="mt-2 text-sm text-red-700">
            {problem}
          </p>
        )}
        <button
          type="submit"
          disabled={busy}
          className="mt-4 rounded bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
        >
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
