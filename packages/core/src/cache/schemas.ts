// Values checked on read against a Standard Schema (zod, valibot, arktype, …) chosen by key
// pattern: what a store hands back was written by some other process, some other release, and
// is only returned once it passes.
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { StowageErrorCode } from '../errors/error-codes.js'
import { StowageError } from '../errors/stowage-error.js'

/** Schemas by key pattern (`*` matches any run of characters), as {@link CacheOptions.schemas} takes them. */
export type CacheSchemas = Readonly<Record<string, StandardSchemaV1>>

/** The first schema whose pattern matches a key, or `undefined`. */
export type SchemaFinder = (key: string) => StandardSchemaV1 | undefined

const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&')

/** @throws {StowageError} INVALID_ARGUMENT for something that is not a Standard Schema. */
export function compileSchemas(schemas: unknown): SchemaFinder | undefined {
  if (schemas === undefined) return undefined
  if (typeof schemas !== 'object' || schemas === null) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'schemas must be an object of key patterns to Standard Schemas')
  const compiled = Object.entries(schemas).map(([pattern, schema]) => {
    if (typeof (schema as Partial<StandardSchemaV1> | null)?.['~standard']?.validate !== 'function') {
      throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `schemas[${JSON.stringify(pattern)}] is not a Standard Schema (zod, valibot, arktype, …)`)
    }
    return { match: new RegExp(`^${pattern.split('*').map(escape).join('[\\s\\S]*')}$`), schema: schema as StandardSchemaV1 }
  })
  return (key) => compiled.find((c) => c.match.test(key))?.schema
}

/** The value as the schema outputs it, or a SCHEMA_MISMATCH error naming the first issues. */
export async function validated(schema: StandardSchemaV1, key: string, value: unknown): Promise<{ value: unknown } | { error: StowageError }> {
  const result = await schema['~standard'].validate(value)
  if (result.issues === undefined) return { value: result.value }
  const where = (issue: StandardSchemaV1.Issue) => (issue.path ?? []).map((p) => (typeof p === 'object' ? p.key : p)).map(String).join('.')
  const issues = result.issues
    .slice(0, 3)
    .map((issue) => (where(issue) ? `${where(issue)}: ${issue.message}` : issue.message))
    .join('; ')
  return { error: new StowageError(StowageErrorCode.SCHEMA_MISMATCH, `the value under ${JSON.stringify(key)} does not pass its schema: ${issues}`) }
}
