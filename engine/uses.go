package engine

import (
	"context"
	"slices"
	"time"

	"github.com/tenure-dev/tenure"
)

// RecordUses adds uses to the use counts of memories of tenant (by object
// id) and sets their last use to at, in place and in one transaction:
// bookkeeping that changes no belief, so no version is written. Ids of
// objects that are gone, not current or not memories are skipped. It is
// the sink of memory.UseTracker, which batches what compilations report
// (compile.UseRecorder); it takes no principal because the ids come from
// compilations that already read the objects.
func (e *Engine) RecordUses(ctx context.Context, tenant string, uses map[string]int, at time.Time) error {
	ids := make([]string, 0, len(uses))
	for id := range uses {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return e.withTx(ctx, "record uses", func(tx Tx) error {
		for _, id := range ids {
			o, ok, err := tx.Latest(ctx, tenant, id)
			if err != nil {
				return err
			}
			if !ok || o.Memory == nil || o.Status != tenure.StatusActive {
				continue
			}
			m := *o.Memory
			m.Uses += uses[id]
			o.Memory = &m
			if o.LastUsed == nil || at.After(*o.LastUsed) {
				o.LastUsed = tenure.Ptr(at.UTC())
			}
			if err := tx.Touch(ctx, &o); err != nil {
				return err
			}
		}
		return nil
	})
}
