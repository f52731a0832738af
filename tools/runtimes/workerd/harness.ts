// What the bundled test files get for `import … from 'vitest'` inside workerd. Vitest's runner
// needs node:worker_threads or child processes and a module runner, none of which a Workers
// isolate has, so this stands in for the part the runtime-neutral test files use: describe, it,
// beforeEach/afterEach and vitest's own `expect` (@vitest/expect over chai, the same matchers and
// messages). `vi` is not here: a test that calls it fails and says so.
import { ASYMMETRIC_MATCHERS_OBJECT, chai, JestAsymmetricMatchers, JestChaiExpect, JestExtend, getState, setState } from '@vitest/expect'

chai.use(JestExtend)
chai.use(JestChaiExpect)
chai.use(JestAsymmetricMatchers)

type Hook = () => unknown
// A test gets what vitest's context offers that the tests use: `skip()`, for an ability the store lacks.
type TestFn = (context: { skip(note?: string): never }) => unknown
interface Suite {
  name: string
  tests: Array<{ name: string; fn: TestFn }>
  children: Suite[]
  beforeEach: Hook[]
  afterEach: Hook[]
}

/** One test's outcome, as the runner prints it. */
export interface TestResult {
  readonly name: string
  readonly status: 'passed' | 'failed' | 'skipped'
  readonly error?: string
  readonly ms: number
}

const newSuite = (name: string): Suite => ({ name, tests: [], children: [], beforeEach: [], afterEach: [] })
const root = newSuite('')
let current = root
let file = ''
// A file's top-level describe and it calls are only recorded, and their bodies run when run() is
// called: workerd refuses timers, random bytes and I/O in a Worker's global scope.
const collectors: Array<() => void> = []

/** Names the test file whose tests register next (the bundler puts a call at the top of each file). */
export function setFile(name: string): void {
  file = name
}

function inSuite(suite: Suite, fn: () => void): void {
  const parent = current
  current = suite
  try {
    fn()
  } finally {
    current = parent
  }
}

export function describe(name: string, fn: () => void): void {
  if (current === root) {
    const inFile = file
    collectors.push(() => {
      const suite = newSuite(`${inFile} > ${name}`)
      root.children.push(suite)
      inSuite(suite, fn)
    })
    return
  }
  const suite = newSuite(name)
  current.children.push(suite)
  inSuite(suite, fn)
}

export function it(name: string, optionsOrFn: TestFn | { timeout?: number }, maybeFn?: TestFn): void {
  // it(name, options, fn): the options (a timeout) do not apply here; workerd has no limit of its own.
  const fn = typeof optionsOrFn === 'function' ? optionsOrFn : (maybeFn as TestFn)
  if (current === root) {
    const inFile = file
    collectors.push(() => {
      const suite = newSuite(inFile)
      root.children.push(suite)
      suite.tests.push({ name, fn })
    })
    return
  }
  current.tests.push({ name, fn })
}
/** it.skipIf(condition)(name, fn): as vitest's; a skipped test is reported as skipped, with the reason. */
it.skipIf = (condition: unknown) => (name: string, fn: TestFn): void =>
  it(name, condition ? () => {
    throw new Unavailable('skipped in this runtime (it.skipIf)')
  } : fn)
export const test = it

export function beforeEach(fn: Hook): void {
  current.beforeEach.push(fn)
}
export function afterEach(fn: Hook): void {
  current.afterEach.push(fn)
}

/** Thrown by `vi`: the test is reported as skipped, with the reason. */
export class Unavailable extends Error {}

export const expect = ((value: unknown, message?: string) => {
  setState({ assertionCalls: getState(expect).assertionCalls + 1 }, expect)
  return chai.expect(value, message)
}) as unknown as typeof import('vitest').expect
Object.assign(expect, chai.expect, (globalThis as Record<symbol, unknown>)[ASYMMETRIC_MATCHERS_OBJECT])
setState({ assertionCalls: 0, isExpectingAssertions: false, expectedAssertionsNumber: null }, expect)

export const vi = new Proxy({}, {
  get(_, name) {
    throw new Unavailable(`vi.${String(name)} (fake timers, mocks) is not in this harness`)
  },
})

/**
 * Runs every registered test, one at a time, each with the beforeEach/afterEach hooks of its suites.
 * @returns One result per test, in registration order.
 */
export async function run(): Promise<TestResult[]> {
  for (const collect of collectors.splice(0)) collect()
  const results: TestResult[] = []
  const walk = async (suite: Suite, path: string[], before: Hook[], after: Hook[]): Promise<void> => {
    const names = suite.name === '' ? path : [...path, suite.name]
    const befores = [...before, ...suite.beforeEach]
    const afters = [...suite.afterEach, ...after]
    for (const t of suite.tests) {
      const start = Date.now()
      let error: string | undefined
      let skipped = false
      try {
        for (const hook of befores) await hook()
        await t.fn({
          skip(note) {
            throw new Unavailable(note ?? 'skipped by the test')
          },
        })
      } catch (e) {
        skipped = e instanceof Unavailable
        error = e instanceof Error ? `${e.name}: ${e.message}` : String(e)
      }
      for (const hook of afters) {
        try {
          await hook()
        } catch (e) {
          // `afterEach(() => vi.useRealTimers())` has nothing to undo when vi never ran.
          if (!(e instanceof Unavailable)) error ??= `afterEach: ${e instanceof Error ? e.message : String(e)}`
        }
      }
      const status = error === undefined ? 'passed' : skipped ? 'skipped' : 'failed'
      results.push({ name: [...names, t.name].join(' > '), status, ...(error === undefined ? {} : { error }), ms: Date.now() - start })
    }
    for (const child of suite.children) await walk(child, names, befores, afters)
  }
  await walk(root, [], [], [])
  return results
}
