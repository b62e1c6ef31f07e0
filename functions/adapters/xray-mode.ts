/**
 * Imported before the tracer, for its side effect: when the tracer will be off (outside Lambda,
 * as in the local runtime and the tests, or POWERTOOLS_TRACE_ENABLED=false), it puts the X-Ray SDK
 * in manual mode before the SDK loads. Nothing reads the X-Ray context then, yet in its default
 * (automatic) mode the SDK tracks every promise with an async_hooks destroy hook, which cost the
 * executor about a fifth of its CPU per execution in the bench's CPU probe.
 */
const tracingOff = !process.env.AWS_EXECUTION_ENV || process.env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() === 'false';
if (tracingOff) process.env.AWS_XRAY_MANUAL_MODE ??= 'true';
