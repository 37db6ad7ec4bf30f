package retrieve

// CachedStems and MaxCachedStems expose the stem cache's size to the
// external tests.
func CachedStems() int64 { return stemCached.Load() }

const MaxCachedStems = maxCachedStems
