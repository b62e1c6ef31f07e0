/** The frame of every signed-in page: navigation by scope, sign-out, and the page below. */
import { NavLink, Outlet, useLocation } from 'react-router';
import { useSession, useSessionState } from '../session.tsx';

/** `also`: another path prefix the entry stands for (a workflow run's page is under Workflows). */
interface NavEntry {
  to: string;
  label: string;
  also?: string;
}
const TENANT_LINKS: NavEntry[] = [
  { to: '/jobs', label: 'Jobs' },
  { to: '/workflows', label: 'Workflows', also: '/workflow-runs/' },
  { to: '/dead-letters', label: 'Dead letters' },
  { to: '/health', label: 'Health' },
];
const ADMIN_LINKS: NavEntry[] = [{ to: '/health', label: 'Health' }];

export function Layout() {
  const { scope } = useSession();
  const { signOut } = useSessionState();
  const { pathname } = useLocation();
  const links = scope === 'admin' ? ADMIN_LINKS : TENANT_LINKS;
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <nav aria-label="Main" className="mx-auto flex max-w-7xl items-center gap-6 px-4 py-3">
          <span className="font-semibold text-indigo-700">Chronos</span>
          {links.map((link) => (
            <NavLink
              key={link.to}
              to={link.to}
              className={({ isActive }) =>
                `text-sm ${
                  isActive || (link.also && pathname.startsWith(link.also))
                    ? 'font-semibold text-slate-900'
                    : 'text-slate-600 hover:text-slate-900'
                }`
              }
            >
              {link.label}
            </NavLink>
          ))}
          <span className="ml-auto text-xs text-slate-500">{scope === 'admin' ? 'Operator' : 'Tenant'}</span>
          <button
            type="button"
            onClick={signOut}
            className="rounded border border-slate-300 px-2 py-1 text-sm hover:bg-slate-100"
          >
            Sign out
          </button>
        </nav>
      </header>
      <main className="mx-auto max-w-7xl px-4 py-6">
        <Outlet />
      </main>
    </div>
  );
}
