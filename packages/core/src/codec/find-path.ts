// Walks a value after the encoder gave up on it, to say why and where: whether it refers to itself,
// and the path to the value that could not be stored. Never on the hot path. Iterative, so a deep
// value cannot overflow the stack, and every object is entered once, so values that share
// sub-objects (a DAG, not a cycle) cost time linear in their distinct objects, not in their paths.

/** One child of a container and the step of a path that leads to it. */
type Child = [value: unknown, step: string]

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

function* children(value: object): Iterable<Child> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield [value[i], `[${i}]`]
  } else if (value instanceof Map) {
    let i = 0
    for (const [k, v] of value) {
      yield [k, `<key ${i}>`]
      yield [v, `<value ${i}>`]
      i++
    }
  } else if (value instanceof Set) {
    let i = 0
    for (const member of value) yield [member, `<member ${i++}>`]
  } else {
    const proto = Object.getPrototypeOf(value)
    if (proto === Object.prototype || proto === null) {
      for (const key of Object.keys(value)) yield [(value as Record<string, unknown>)[key], IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`]
    }
  }
}

interface Frame {
  readonly value: object
  readonly step: string
  readonly rest: Iterator<Child>
}

/**
 * Depth-first walk in the encoder's order. `visit` sees every object once, with its path;
 * returning true stops the walk. Returns the path at which it stopped, or undefined.
 */
function walk(root: unknown, visit: (value: unknown, path: () => string, onPath: Set<object>) => boolean): string | undefined {
  const pathOf = (stack: Frame[], last?: string) => '$' + stack.slice(1).map((f) => f.step).join('') + (last ?? '')
  if (visit(root, () => '$', new Set())) return '$'
  if (typeof root !== 'object' || root === null) return undefined
  const onPath = new Set<object>([root])
  const done = new Set<object>()
  const stack: Frame[] = [{ value: root, step: '', rest: children(root)[Symbol.iterator]() }]
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as Frame
    const next = top.rest.next()
    if (next.done) {
      onPath.delete(top.value)
      done.add(top.value)
      stack.pop()
      continue
    }
    const [child, step] = next.value
    if (visit(child, () => pathOf(stack, step), onPath)) return pathOf(stack, step)
    if (typeof child !== 'object' || child === null || done.has(child) || onPath.has(child)) continue
    onPath.add(child)
    stack.push({ value: child, step, rest: children(child)[Symbol.iterator]() })
  }
  return undefined
}

/** Tells whether `root` refers to itself through arrays, plain objects, Maps or Sets. */
export function hasCycle(root: unknown): boolean {
  return walk(root, (value, _path, onPath) => typeof value === 'object' && value !== null && onPath.has(value)) !== undefined
}

/** The path (`$.rows[17].handler`) of the first place `target` appears in `root`, or undefined. */
export function pathTo(root: unknown, target: unknown): string | undefined {
  return walk(root, (value) => value === target)
}
