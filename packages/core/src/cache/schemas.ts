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

/**
 * Whether `key` matches a glob whose `*`s split it into `parts` (literal text, at least one). The
 * first part must start the key and the last end it; the ones between are found in order, each
 * at its leftmost place after the one before (leftmost is always safe: a later place leaves less
 * room for the rest). No backtracking: each part is searched for once, so a read costs time
 * linear in the key, where a regular expression with several `*`s took seconds for a 14 KB key.
 */
export function matchesGlob(parts: readonly string[], key: string): boolean {
  const first = parts[0] as string
  if (parts.length === 1) return key === first
  const last = parts[parts.length - 1] as string
  if (key.length < first.length + last.length || !key.startsWith(first) || !key.endsWith(last)) return false
  const end = key.length - last.length
  let at = first.length
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] as string
    const found = key.indexOf(part, at)
    if (found < 0 || found + part.length > end) return false
    at = found + part.length
  }
  return true
}

/** @throws {StowageError} INVALID_ARGUMENT for something that is not a Standard Schema. */
export function compileSchemas(schemas: unknown): SchemaFinder | undefined {
  if (schemas === undefined) return undefined
  if (typeof schemas !== 'object' || schemas === null) throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, 'schemas must be an object of key patterns to Standard Schemas')
  const compiled = Object.entries(schemas).map(([pattern, schema]) => {
    if (typeof (schema as Partial<StandardSchemaV1> | null)?.['~standard']?.validate !== 'function') {
      throw new StowageError(StowageErrorCode.INVALID_ARGUMENT, `schemas[${JSON.stringify(pattern)}] is not a Standard Schema (zod, valibot, arktype, …)`)
    }
    return { parts: pattern.split('*'), schema: schema as StandardSchemaV1 }
  })
  return (key) => compiled.find((c) => matchesGlob(c.parts, key))?.schema
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
