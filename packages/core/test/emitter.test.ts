import { describe, expect, it } from 'vitest'
import { Emitter } from '../src/index.js'

describe('Emitter', () => {
  it('calls the listeners of one event in order, stops on unsubscribe, and drops listener errors', () => {
    const events = new Emitter<{ a: number; b: string }>()
    const seen: unknown[] = []
    events.on('a', () => {
      throw new Error('a broken listener')
    })
    const off = events.on('a', (n) => seen.push(n))
    events.on('b', (s) => seen.push(s))
    events.emit('a', 1)
    events.emit('b', 'x')
    off()
    off()
    events.emit('a', 2)
    expect(seen).toStrictEqual([1, 'x'])
  })
})
