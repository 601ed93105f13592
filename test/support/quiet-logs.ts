// Tests provoke failures on purpose (a crashed immutable copy, a lost chain head); the service logs those at
// WARN, which is right in production and noise in test output. Anything at ERROR still shows.
process.env.LOG_LEVEL ??= 'ERROR';
