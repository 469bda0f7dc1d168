package tools

// oNonblock is nothing on Windows, where opening a file does not wait on
// a writer.
const oNonblock = 0
