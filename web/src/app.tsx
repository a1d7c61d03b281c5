import { Suspense, useEffect } from 'react';
import { Link, Route, Switch, useLocation } from 'wouter';
import { signInUrl, useQuery } from './api';
import { ErrorNotice } from './components/ErrorNotice';
import { lazyPage, PageBoundary } from './components/lazyPage';
import { NotFound } from './components/NotFound';
import { graphql } from './gql';
import Deployments from './pages/Deployments';
import { ViewerContext } from './viewer';

// The first page (`/` and `/deployments`) comes with the main script, so its data is asked for
// as soon as the script runs; the other pages load when they are opened.
const DeploymentPage = lazyPage(() => import('./pages/DeploymentPage'));
const DeploymentInstall = lazyPage(() => import('./pages/DeploymentInstall'));
const Workflows = lazyPage(() => import('./pages/Workflows'));
const WorkflowEditor = lazyPage(() => import('./pages/WorkflowEditor'));
const Library = lazyPage(() => import('./pages/Library'));
const Marketplace = lazyPage(() => import('./pages/Marketplace'));
const MarketplaceWorkflow = lazyPage(() => import('./pages/MarketplaceWorkflow'));
const Account = lazyPage(() => import('./pages/Account'));
const Teams = lazyPage(() => import('./pages/Teams'));
const Team = lazyPage(() => import('./pages/Team'));
const AdminReports = lazyPage(() => import('./pages/AdminReports'));

const ViewerQuery = graphql(`
  query Viewer {
    me {
      userId
      email
      plan
      isOperator
    }
  }
`);

const NAV = [
  ['/deployments', 'Deployments'],
  ['/workflows', 'Workflows'],
  ['/library', 'Library'],
  ['/marketplace', 'Marketplace'],
  ['/teams', 'Teams'],
  ['/account', 'Account'],
] as const;

export function App() {
  const viewer = useQuery(ViewerQuery);
  const [location] = useLocation();

  useEffect(() => {
    if (viewer.error?.code === 'UNAUTHORIZED') window.location.assign(signInUrl());
  }, [viewer.error]);
  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [location]);

  if (viewer.error && viewer.error.code !== 'UNAUTHORIZED') {
    return (
      <main className="page" id="main">
        <ErrorNotice error={viewer.error} onRetry={viewer.reload} />
      </main>
    );
  }
  // The page and the viewer load side by side; only the header waits for the viewer.
  return (
    <ViewerContext.Provider value={viewer.data?.me ?? null}>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="top">
        <Link href="/deployments" className="brand">
          Workflow service
        </Link>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([href, label]) => (
              <li key={href}>
                <Link href={href} aria-current={location.startsWith(href) ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
            {viewer.data?.me.isOperator && (
              <li>
                <Link href="/admin/reports" aria-current={location.startsWith('/admin') ? 'page' : undefined}>
                  Reports
                </Link>
              </li>
            )}
          </ul>
        </nav>
        <form method="post" action="/sign-out" className="sign-out">
          <span className="who">{viewer.data?.me.email}</span>
          <button type="submit" className="link-button">
            Sign out
          </button>
        </form>
      </header>
      <main id="main" tabIndex={-1} className="page">
        <PageBoundary resetKey={location}>
          <Suspense fallback={<p aria-live="polite">Loading…</p>}>
            <Switch>
              <Route path="/" component={Deployments} />
              <Route path="/deployments" component={Deployments} />
              <Route path="/deployments/:id/install" component={DeploymentInstall} />
              <Route path="/deployments/:id" component={DeploymentPage} />
              <Route path="/workflows" component={Workflows} />
              <Route path="/workflows/new" component={WorkflowEditor} />
              <Route path="/workflows/:id" component={WorkflowEditor} />
              <Route path="/library" component={Library} />
              <Route path="/marketplace" component={Marketplace} />
              <Route path="/marketplace/:id" component={MarketplaceWorkflow} />
              <Route path="/teams" component={Teams} />
              <Route path="/teams/:id" component={Team} />
              <Route path="/account" component={Account} />
              <Route path="/admin/reports" component={AdminReports} />
              <Route>
                <NotFound />
              </Route>
            </Switch>
          </Suspense>
        </PageBoundary>
      </main>
    </ViewerContext.Provider>
  );
}
