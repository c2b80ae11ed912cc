// Jest setup, for Node.js 24.9+ (22 and older take the CommonJS transform in jest.config.js).
// There Jest `require()`s an ES module natively, and refuses, as Node does, a `require()` of a
// module whose graph is still being walked: a spec that imports `@nestjs/common` beside a module
// that imports `@nestjs/throttler` (CommonJS, which requires `@nestjs/common`) fails with "Cannot
// require() ES Module … in a cycle". Loading the CommonJS package first, in a walk of its own,
// leaves `@nestjs/common` evaluated before any spec's graph reaches it.
await import('@nestjs/throttler');
