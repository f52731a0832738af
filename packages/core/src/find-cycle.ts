function children(value: object): Iterable<unknown> {
  if (Array.isArray(value)) return value
  if (value instanceof Map) return [...value.keys(), ...value.values()]
  if (value instanceof Set) return value
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null ? Object.values(value) : []
}

/**
 * Tells whether `root` refers to itself through arrays, plain objects, Maps or Sets.
 * Iterative, so a deep value cannot overflow the stack. Only run after the encoder gave up on
 * depth, to tell a cycle from a value that is merely too deep.
 */
export function hasCycle(root: unknown): boolean {
  if (typeof root !== 'object' || root === null) return false
  const onPath = new Set<object>([root])
  const stack: Array<{ value: object; rest: Iterator<unknown> }> = [{ value: root, rest: children(root)[Symbol.iterator]() }]
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { value: object; rest: Iterator<unknown> }
    const next = top.rest.next()
    if (next.done) {
      onPath.delete(top.value)
      stack.pop()
      continue
    }
    const child = next.value
    if (typeof child !== 'object' || child === null) continue
    if (onPath.has(child)) return true
    onPath.add(child)
    stack.push({ value: child, rest: children(child)[Symbol.iterator]() })
  }
  return false
}
