import { defineCachedEventHandler } from 'nitropack/runtime'

// A cached handler with a maxAge of its own, swr still on (the default).
export default defineCachedEventHandler(() => ({ page: 'home', at: Date.now() }), { maxAge: 60 })
