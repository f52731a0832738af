// @stowage/core/otel: OpenTelemetry for caches. Needs the optional peer @opentelemetry/api.
export { DEFAULT_RECORD_KEYS, INSTRUMENTATION_SCOPE, instrumentCache, type InstrumentOptions } from './instrument.js'
export { StowageMetric } from './metrics.js'
