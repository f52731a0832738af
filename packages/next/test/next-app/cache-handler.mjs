import { createCacheHandler } from '../../dist/index.js'
import { options } from './cache.mjs'

export default createCacheHandler(options)
