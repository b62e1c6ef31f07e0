import { describe, expect, it } from 'vitest';
import { ROUTES } from '#handlers/api/routes';
import { API_MODULES } from './api-modules.ts';

describe("the chaos API worker's handler modules", () => {
  it('cover every route of the route table (create-job is wrapped apart), so the API worker can start', () => {
    const routed = new Set(ROUTES.map((route) => route.handler));
    routed.delete('create-job');
    expect(Object.keys(API_MODULES).sort()).toEqual([...routed].sort());
  });
});
