import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App.tsx';
import './index.css';
import { SessionProvider } from './session.tsx';

const queries = new QueryClient({
  defaultOptions: {
    // A 4xx will not change by asking again; a network blip may.
    queries: { retry: (count, error) => count < 2 && !(error as { error?: { status?: number } }).error?.status },
  },
});

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <BrowserRouter>
        {/* Signing out forgets every cached answer: the next token must not see the last one's data. */}
        <SessionProvider onSignOut={() => queries.clear()}>
          <App />
        </SessionProvider>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
