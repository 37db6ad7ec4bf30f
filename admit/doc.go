// Package admit caps how many operations of a kind run at once. Past the
// cap an operation is refused at once, never queued: the caller gets
// CodeUnavailable whose cause is a *Busy carrying a retry hint (HTTP 503
// with Retry-After). A compilation holds memory in proportion to its
// input, so the cap, times the largest input the size limits allow,
// bounds what a burst of them can take; and a client told to come back
// later backs off instead of waiting in a queue of unknown length.
package admit
