// Opening the database: at whatever version it has, then once more one version up when our object
// stores are missing (so that several stores can share one database), within a time limit.
import { StowageError, StowageErrorCode } from '@stowage/core'
import { openDB } from 'idb'
import type { Db, StoreNames } from './records.js'

/** What the connection tells its owner after opening. */
export interface ConnectionHandlers {
  /** Another tab wants a newer version: close, and reopen on the next call. */
  blocking(): void
  /** The browser closed the connection. */
  terminated(): void
}

function timeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StowageError(StowageErrorCode.STORE_ERROR, `${what} took longer than ${ms} ms`)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}

/**
 * Opens `dbName` with the entries store (indexed by expiry and by last access) and the meta store.
 * @throws {StowageError} STORE_ERROR past `ms`; what IndexedDB throws otherwise.
 */
export function openDatabase(dbName: string, names: StoreNames, ms: number, owner: ConnectionHandlers): Promise<Db> {
  // Given up on (past `ms`, or failed): a connection that opens after that is closed at once and
  // tells its owner nothing (the owner has fallen back to memory; its 'blocking' would drop that).
  let abandoned = false
  const handlers: ConnectionHandlers = {
    blocking: () => {
      if (!abandoned) owner.blocking()
    },
    terminated: () => {
      if (!abandoned) owner.terminated()
    },
  }
  const createStores = (upgrading: Db) => {
    if (!upgrading.objectStoreNames.contains(names.entries)) {
      const store = upgrading.createObjectStore(names.entries, { keyPath: 'key' })
      store.createIndex('expiresAt', 'expiresAt')
      store.createIndex('accessedAt', 'accessedAt')
    }
    if (!upgrading.objectStoreNames.contains(names.meta)) upgrading.createObjectStore(names.meta)
  }
  const connect = async () => {
    // A database that does not exist yet is created with our stores in this one open (a first
    // visit pays one open, not two).
    let db = await openDB(dbName, undefined, { ...handlers, upgrade: (upgrading) => createStores(upgrading) })
    if (db.objectStoreNames.contains(names.entries) && db.objectStoreNames.contains(names.meta)) return db
    const version = db.version + 1
    db.close()
    db = await openDB(dbName, version, { ...handlers, upgrade: (upgrading) => createStores(upgrading) })
    return db
  }
  const connecting = connect()
  return timeout(connecting, ms, `opening IndexedDB database ${dbName}`).catch((e: unknown) => {
    abandoned = true
    connecting.then((db) => db.close(), () => {})
    throw e
  })
}
