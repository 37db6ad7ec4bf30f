package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/temporal"
	"github.com/tenure-dev/tenure/tokenizer"
)

// Options configures an Engine. The zero value works.
type Options struct {
	// Now is the clock (default time.Now). Transaction times are strictly
	// increasing even when the clock is not.
	Now func() time.Time
	// Hierarchy ranks principals (default tenure.DefaultHierarchy).
	Hierarchy tenure.Hierarchy
	// WritePolicy says who may write binding content (default
	// tenure.DefaultWritePolicy; an empty non-nil list allows everything).
	WritePolicy []tenure.WriteRule
	// Logger receives write outcomes at debug level (default: discard).
	Logger *slog.Logger
	// NewID generates object ids (default: UUIDv7, time-ordered).
	NewID func() string
	// CountTokens counts a message's tokens when it is appended, so that
	// compilation never recounts history (default: cl100k_base).
	CountTokens func(string) int
	// ResolveDates resolves a message's temporal expressions against its
	// date (default: the temporal package's resolver). Dates out of the
	// calendar every store holds (tenure.InCalendar) are dropped, whatever
	// the resolver: the expression stays text.
	ResolveDates func(text string, ref time.Time) []tenure.ResolvedDate
	// SessionGap starts a new session for messages without a session id
	// after this much silence (default DefaultSessionGap).
	SessionGap time.Duration
	// State configures structured-state extraction.
	State StateOptions
	// MaxContentBytes bounds an object's content and value and a
	// message's content, in bytes each (default tenure.MaxContentLen,
	// 1 MiB): a write over it fails with CodeTooLarge naming the field and
	// writes nothing. Compilations read stored objects whole, so this
	// bounds what one object adds to every compilation that touches it.
	MaxContentBytes int
	// Embedding, when set, embeds messages (EmbedMessages, and the
	// vectors channel of Digest), so that compilations can find them by
	// meaning (tenure.MessageQuery.Vector). Nil: lexical retrieval only.
	Embedding *semantic.Model
}

// Engine applies Tenure's semantics over a Backend.
type Engine struct {
	b   Backend
	opt Options
	// lastTx is the latest transaction time this engine committed, so that
	// reads "now" see every committed write even when the clock lags the
	// strictly increasing transaction times.
	lastTx atomic.Int64
	// states caches the decoded states of closed workflow rounds, which
	// never change (see snapshot.go).
	states *lru.Cache[stateKey, map[string]any]
}

var _ tenure.Store = (*Engine)(nil)

// New returns an Engine over b. It does no I/O.
func New(b Backend, opt Options) *Engine {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if len(opt.Hierarchy.Ranks) == 0 {
		opt.Hierarchy = tenure.DefaultHierarchy
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.NewID == nil {
		opt.NewID = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	if opt.CountTokens == nil {
		opt.CountTokens = lazyCount()
	}
	if opt.ResolveDates == nil {
		opt.ResolveDates = temporal.New().Resolve
	} else {
		opt.ResolveDates = inCalendar(opt.ResolveDates)
	}
	if opt.SessionGap <= 0 {
		opt.SessionGap = DefaultSessionGap
	}
	if opt.MaxContentBytes <= 0 {
		opt.MaxContentBytes = tenure.MaxContentLen
	}
	states, err := lru.New[stateKey, map[string]any](256)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &Engine{b: b, opt: opt, states: states}
}

// inCalendar wraps a date resolver so that it never yields a date a store
// cannot hold. The temporal package's resolver needs no wrapping.
func inCalendar(resolve func(string, time.Time) []tenure.ResolvedDate) func(string, time.Time) []tenure.ResolvedDate {
	return func(text string, ref time.Time) []tenure.ResolvedDate {
		ds := resolve(text, ref)
		if !slices.ContainsFunc(ds, func(d tenure.ResolvedDate) bool { return !tenure.InCalendar(d.Date) }) {
			return ds
		}
		return slices.DeleteFunc(slices.Clone(ds), func(d tenure.ResolvedDate) bool { return !tenure.InCalendar(d.Date) })
	}
}

// lazyCount counts cl100k_base tokens, loading the encoding on first use
// so that New stays cheap.
func lazyCount() func(string) int {
	var once sync.Once
	var tk *tokenizer.Tokenizer
	return func(s string) int {
		once.Do(func() {
			var err error
			if tk, err = tokenizer.New(tokenizer.CL100KBase); err != nil {
				panic(err) // the ranks are embedded in the binary
			}
		})
		return tk.Count(s)
	}
}

// Hierarchy returns the authority hierarchy in use.
func (e *Engine) Hierarchy() tenure.Hierarchy { return e.opt.Hierarchy }

// principal validates p and fills its defaults.
func (e *Engine) principal(p tenure.Principal) (tenure.Principal, error) {
	p = p.WithDefaults(e.opt.Hierarchy)
	if err := p.Validate(e.opt.Hierarchy); err != nil {
		return p, fmt.Errorf("principal: %w", err)
	}
	return p, nil
}

// inTx runs fn in a write transaction with the transaction clock,
// rolling back on error.
func (e *Engine) inTx(ctx context.Context, op string, fn func(tx Tx, clk *txClock) error) error {
	var clk *txClock
	err := e.withTx(ctx, op, func(tx Tx) error {
		var err error
		if clk, err = e.clock(ctx, tx); err != nil {
			return err
		}
		return fn(tx, clk)
	})
	if err != nil {
		return err
	}
	for last := clk.last.UnixNano(); ; {
		cur := e.lastTx.Load()
		if cur >= last || e.lastTx.CompareAndSwap(cur, last) {
			break
		}
	}
	return nil
}

// withTx runs fn in a write transaction, rolling back on error. Writes
// outside the bitemporal tables (workflow snapshots) need no transaction
// clock.
func (e *Engine) withTx(ctx context.Context, op string, fn func(tx Tx) error) error {
	tx, err := e.b.Begin(ctx)
	if err != nil {
		return wrap(op, err)
	}
	if err = fn(tx); err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			e.opt.Logger.Error("rollback failed", "op", op, "err", rerr)
		}
		return wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return wrap(op, err)
	}
	return nil
}

// now returns the read time "now": the clock, or the latest committed
// transaction time if the clock lags it.
func (e *Engine) now() time.Time {
	now := e.opt.Now().UTC()
	if last := time.Unix(0, e.lastTx.Load()).UTC(); last.After(now) {
		return last
	}
	return now
}

// txClock hands out strictly increasing transaction times within a
// transaction, starting after the latest one stored.
type txClock struct{ last time.Time }

func (e *Engine) clock(ctx context.Context, tx Tx) (*txClock, error) {
	last, err := tx.LastTxTime(ctx)
	if err != nil {
		return nil, err
	}
	return &txClock{last: last}, nil
}

// next returns the next transaction time.
func (c *txClock) next(now time.Time) time.Time {
	now = now.UTC()
	if !now.After(c.last) {
		now = c.last.Add(time.Nanosecond)
	}
	c.last = now
	return now
}

// wrap prefixes err with the operation name, keeping *tenure.Error codes;
// context errors become timeout or unavailable errors.
func wrap(op string, err error) error {
	var te *tenure.Error
	switch {
	case errors.As(err, &te):
	case errors.Is(err, context.DeadlineExceeded):
		err = &tenure.Error{Code: tenure.CodeTimeout, Message: "deadline exceeded", Err: err}
	case errors.Is(err, context.Canceled):
		err = &tenure.Error{Code: tenure.CodeUnavailable, Message: "canceled", Err: err}
	default:
		err = tenure.Internal("storage failure", err)
	}
	if op == "" {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}
