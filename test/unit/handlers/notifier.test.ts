import { describe, expect, it } from 'vitest';
import { MAX_NOTICE_ERROR_CHARS } from '#core/notifications/failure-notice';
import { MalformedNoticeError, parseFailureNotice } from '#handlers/failure-notice-message';
import { redeliveryBackoffSeconds } from '#handlers/redelivery-backoff';

const notice = {
  tenantId: 't',
  jobId: 'J1',
  scheduledFor: Date.parse('2026-06-01T12:00:00Z'),
  attempt: 2,
  runId: 'J1_1780315200000_2',
  status: 'FAILED',
  errorType: 'http_5xx',
  httpStatus: 500,
  error: 'boom',
};
const record = (body: unknown) => ({ messageId: 'm-1', body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('notifier', () => {
  it('reads a notice and only its own fields', () => {
    expect(parseFailureNotice(record({ ...notice, extra: 'x'.repeat(100) }))).toEqual(notice);
  });

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['a missing tenant', { ...notice, tenantId: undefined }],
    ['an id too long', { ...notice, jobId: 'j'.repeat(257) }],
    ['an occurrence out of range', { ...notice, scheduledFor: 1e20 }],
    ['an attempt out of range', { ...notice, attempt: 1000 }],
    ['a status that is not terminal', { ...notice, status: 'RUNNING' }],
    ['an HTTP status out of range', { ...notice, httpStatus: 99_999 }],
    ['an error longer than an excerpt', { ...notice, error: 'e'.repeat(MAX_NOTICE_ERROR_CHARS + 1) }],
  ])('sets aside a record with %s', (_name, body) => {
    expect(() => parseFailureNotice(record(body))).toThrow(MalformedNoticeError);
  });

  it('backs off 4× per receive from its base, at most 15 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map((receives) => redeliveryBackoffSeconds(receives, 10))).toEqual([
      10, 40, 160, 640, 900, 900, 900,
    ]);
  });
});
