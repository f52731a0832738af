// What the IndexedDB store keeps: one record per key, and the shapes its pieces share.
import type { IDBPDatabase, IDBPTransaction } from 'idb'
import { StowageError, StowageErrorCode } from '@stowage/core'

/** One entry as IndexedDB holds it. */
export interface Row {
  readonly key: string
  /** Exactly the value's bytes: never a view into a bigger buffer. */
  readonly value: ArrayBuffer
  /** Bytes accounted: the value and the key. */
  readonly size: number
  readonly expiresAt: number
  readonly accessedAt: number
}

export type Db = IDBPDatabase
/** A read-write transaction over the entries and the meta store (where the byte total lives). */
export type Tx = IDBPTransaction<unknown, string[], 'readwrite'>

/** The names of the two object stores: the entries, and beside them the meta store. */
export interface StoreNames {
  readonly entries: string
  readonly meta: string
}

/** An IndexedDB failure as a StowageError: LIMIT_EXCEEDED for a full quota, STORE_ERROR otherwise. */
export function storeError(what: string, e: unknown): StowageError {
  if (StowageError.isInstance(e)) return e
  if (isQuotaError(e)) return new StowageError(StowageErrorCode.LIMIT_EXCEEDED, `IndexedDB ${what}: the browser's storage quota is full`, { cause: e })
  return new StowageError(StowageErrorCode.STORE_ERROR, `IndexedDB ${what} failed: ${String((e as Error)?.message ?? e)}`, { cause: e })
}

export function isQuotaError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: string }).name === 'QuotaExceededError'
}

/** Runs `work`, turning what it throws into a StowageError. */
export async function run<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (e) {
    throw storeError(what, e)
  }
}
