import { createUseCacheHandler } from '../../dist/index.js'
import { options } from './cache.mjs'

export default createUseCacheHandler(options)
