// @stowage/unstorage: what is public, by name.
export { DRIVER_NAME, stowageDriver, type StowageDriverOptions } from './driver.js'
