import { lazy, Suspense, useEffect, useState, type ComponentType } from 'react';
import { Link, match, navigate, useLocation } from './router';
import { useSession } from './session';
import { SignIn } from './screens/sign-in';

const InsightsView = lazy(() => import('./screens/insights'));
const Alerts = lazy(() => import('./screens/alerts'));
const AlertDetail = lazy(() => import('./screens/alert-detail'));
const Intel = lazy(() => import('./screens/intel'));
const ItemReader = lazy(() => import('./screens/item-reader'));
const Agents = lazy(() => import('./screens/agents'));
const AgentDetail = lazy(() => import('./screens/agent-detail'));
const RunView = lazy(() => import('./screens/run'));
const Destinations = lazy(() => import('./screens/destinations'));
const Triage = lazy(() => import('./screens/triage'));
const Hunt = lazy(() => import('./screens/hunt'));
const ThreatView = lazy(() => import('./screens/threat'));
const Settings = lazy(() => import('./screens/settings'));
const Evaluations = lazy(() => import('./screens/evaluations'));
const EvaluationView = lazy(() => import('./screens/evaluation'));
const CompareEvaluations = lazy(() => import('./screens/evaluation').then((m) => ({ default: m.CompareView })));
const Coverage = lazy(() => import('./screens/coverage'));
const Detections = lazy(() => import('./screens/detections'));
const DetectionView = lazy(() => import('./screens/detection'));
const Approvals = lazy(() => import('./screens/approvals'));
const ApprovalView = lazy(() => import('./screens/approvals').then((m) => ({ default: m.ApprovalView })));

type Params = Record<string, string>;
const ROUTES: Array<[string, ComponentType<{ params: Params }>]> = [
  ['/insights', InsightsView],
  ['/alerts', Alerts],
  ['/alerts/:id', AlertDetail],
  ['/intel/items/:id', ItemReader],
  ['/intel/:tab', Intel],
  ['/agents', Agents],
  ['/agents/:id', AgentDetail],
  ['/agents/:agentId/runs/:runId', RunView],
  ['/destinations', Destinations],
  ['/destinations/:id', Destinations],
  ['/triage-routes', Triage],
  ['/hunt', Hunt],
  ['/hunt/:id', ThreatView],
  ['/settings/:tab', Settings],
  ['/evaluations', Evaluations],
  ['/evaluations/compare', CompareEvaluations],
  ['/evaluations/:id', EvaluationView],
  ['/coverage', Coverage],
  ['/detections', Detections],
  ['/detections/:id', DetectionView],
  ['/approvals', Approvals],
  ['/approvals/:id', ApprovalView],
];

const NAV: Array<[string, string, string]> = [
  ['/insights', 'Insights', 'alert.read'],
  ['/alerts', 'Alerts', 'alert.read'],
  ['/approvals', 'Approvals', 'approval.read'],
  ['/intel/items', 'Intel', 'intel.read'],
  ['/hunt', 'Hunt', 'hunt.read'],
  ['/coverage', 'Coverage', 'intel.read'],
  ['/detections', 'Detections', 'alert.read'],
  ['/agents', 'Agents', 'agent.read'],
  ['/evaluations', 'Evaluations', 'agent.read'],
  ['/triage-routes', 'Triage routes', 'alert.read'],
  ['/destinations', 'Destinations', 'destination.read'],
  ['/settings/users', 'Settings', ''],
];

function useTheme(): [string, () => void] {
  const initial = localStorage.getItem('rampart-theme') ?? (matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark');
  const [theme, setTheme] = useState(initial);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('rampart-theme', theme);
  }, [theme]);
  return [theme, () => setTheme(theme === 'dark' ? 'light' : 'dark')];
}

export function App() {
  const { session, loading, signOut, can } = useSession();
  const { pathname } = useLocation();
  const [theme, toggleTheme] = useTheme();

  useEffect(() => {
    // Home is Insights for those who may read alerts, else the first screen they may open.
    if (!loading && session && (pathname === '/' || pathname === '/sign-in')) navigate(can('alert.read') ? '/insights' : (NAV.find(([, , perm]) => !perm || can(perm))?.[0] ?? '/settings/users'), { replace: true });
  }, [loading, session, pathname]);

  if (loading) return <p className="state" role="status">Loading…</p>;
  if (!session) return <SignIn theme={theme} toggleTheme={toggleTheme} />;

  const found = ROUTES.map(([pattern, C]) => [match(pattern, pathname), C] as const).find(([p]) => p);
  const [params, Screen] = found ?? [null, null];
  return (
    <div className="shell">
      <a className="skip" href="#main">Skip to content</a>
      <header className="top">
        <Link to="/" className="brand">Rampart</Link>
        <nav aria-label="Main" className="main-nav">
          {NAV.filter(([, , perm]) => !perm || can(perm)).map(([to, text]) => (
            <Link key={to} to={to} aria-current={pathname.startsWith(to.split('/').slice(0, 2).join('/')) ? 'page' : undefined}>{text}</Link>
          ))}
        </nav>
        <div className="who">
          <span title={session.user.email}>{session.user.name || session.user.email}</span>
          <button type="button" onClick={toggleTheme} aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}>{theme === 'dark' ? 'Light' : 'Dark'}</button>
          <button type="button" onClick={() => void signOut()}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p className="state" role="status">Loading…</p>}>
          {Screen && params ? <Screen params={params} /> : <NotFound />}
        </Suspense>
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <section className="page">
      <h1>Not found</h1>
      <p>No console page at this address. <Link to="/alerts">Go to the alerts queue</Link>.</p>
    </section>
  );
}
