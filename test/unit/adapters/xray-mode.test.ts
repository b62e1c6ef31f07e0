/**
 * Outside Lambda the tracer is off, and the X-Ray SDK it loads must not install its async hook
 * (cls-hooked namespace), which tracked every promise of every handler for nothing: about a fifth
 * of the executor's CPU per execution in the bench's CPU probe (issue #15).
 */
import { describe, expect, it } from 'vitest';

describe('X-Ray mode', () => {
  it('loads the tracer without an X-Ray context namespace (no async hook) when tracing is off', async () => {
    expect(process.env.AWS_EXECUTION_ENV).toBeUndefined();
    const { tracer } = await import('#adapters/tracer');
    expect(tracer.isTracingEnabled()).toBe(false);
    expect(process.env.AWS_XRAY_MANUAL_MODE).toBe('true');
    const namespaces = (process as unknown as { namespaces?: Record<string, unknown> }).namespaces ?? {};
    expect(Object.keys(namespaces)).not.toContain('AWSXRay');
  });
});
