/** The console's pages by path; every page but sign-in needs a session, the operator sees monitoring only. */
import type { ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { Layout } from './components/Layout.tsx';
import { CreateJobPage } from './pages/CreateJobPage.tsx';
import { DeadLettersPage } from './pages/DeadLettersPage.tsx';
import { EditJobPage } from './pages/EditJobPage.tsx';
import { HealthPage } from './pages/HealthPage.tsx';
import { JobDetailPage } from './pages/JobDetailPage.tsx';
import { JobsPage } from './pages/JobsPage.tsx';
import { SignInPage } from './pages/SignInPage.tsx';
import { WorkflowDetailPage } from './pages/WorkflowDetailPage.tsx';
import { WorkflowRunPage } from './pages/WorkflowRunPage.tsx';
import { WorkflowsPage } from './pages/WorkflowsPage.tsx';
import { type Scope, useSessionState } from './session.tsx';

function RequireSession({ scope, children }: { scope?: Scope; children: ReactNode }) {
  const { session } = useSessionState();
  const location = useLocation();
  if (!session) {
    const next = encodeURIComponent(`${location.pathname}${location.search}`);
    return <Navigate to={`/sign-in?next=${next}`} replace />;
  }
  if (scope && session.scope !== scope) return <Navigate to="/health" replace />;
  return children;
}

function Home() {
  const { session } = useSessionState();
  return <Navigate to={session?.scope === 'admin' ? '/health' : '/jobs'} replace />;
}

export function App() {
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route
        element={
          <RequireSession>
            <Layout />
          </RequireSession>
        }
      >
        <Route index element={<Home />} />
        <Route
          path="jobs"
          element={
            <RequireSession scope="tenant">
              <JobsPage />
            </RequireSession>
          }
        />
        <Route
          path="jobs/new"
          element={
            <RequireSession scope="tenant">
              <CreateJobPage />
            </RequireSession>
          }
        />
        <Route
          path="jobs/:id"
          element={
            <RequireSession scope="tenant">
              <JobDetailPage />
            </RequireSession>
          }
        />
        <Route
          path="jobs/:id/edit"
          element={
            <RequireSession scope="tenant">
              <EditJobPage />
            </RequireSession>
          }
        />
        <Route
          path="workflows"
          element={
            <RequireSession scope="tenant">
              <WorkflowsPage />
            </RequireSession>
          }
        />
        <Route
          path="workflows/:id"
          element={
            <RequireSession scope="tenant">
              <WorkflowDetailPage />
            </RequireSession>
          }
        />
        <Route
          path="workflow-runs/:workflowRunId"
          element={
            <RequireSession scope="tenant">
              <WorkflowRunPage />
            </RequireSession>
          }
        />
        <Route
          path="dead-letters"
          element={
            <RequireSession scope="tenant">
              <DeadLettersPage />
            </RequireSession>
          }
        />
        <Route path="health" element={<HealthPage />} />
        <Route path="*" element={<p>No such page.</p>} />
      </Route>
    </Routes>
  );
}
