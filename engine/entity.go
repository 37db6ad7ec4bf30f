package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
)

// Entity resolution (docs/entities.md): every object's canonical entity
// ids are resolved through the registry of the object's user (the shared
// registry for objects of no user) as the object is written, before
// reconciliation; claims about the same resolved entity's same attribute
// compete for one slot whatever their keys. The registry is optional for
// a backend: one that does not implement EntityReader and whose
// transactions do not implement EntityWriter stores no registry, the
// registry methods fail with CodeUnavailable and slots are keys alone.

// EntityReader reads the entity registry outside transactions.
type EntityReader interface {
	// EntityList returns the open versions of the entities of the tenant's
	// registries f.Registries matching f, by registry and id.
	EntityList(ctx context.Context, tenant string, f EntityFilter) ([]entity.Entity, error)
	// EntityVersions returns every version of an entity of a registry,
	// oldest first (none: no such entity).
	EntityVersions(ctx context.Context, tenant, registry, id string) ([]entity.Entity, error)
	// EntityOps returns the operations that named the entity as From or
	// Into, oldest first.
	EntityOps(ctx context.Context, tenant, registry, id string) ([]entity.Op, error)
}

// EntityFilter selects entities. A registry is a user id, "" the
// tenant's shared registry.
type EntityFilter struct {
	Registries []string
	Status     entity.Status // "" any
	Type       entity.Type   // "" any
	Limit      int           // 0: no limit
	// Slugs, when set, keeps the entities with an alias of one of these
	// slugs (entity.KeySlug), through the stores' name index.
	Slugs []string
}

// EntityWriter writes the entity registry inside a write transaction.
type EntityWriter interface {
	// Registry returns the open versions of every entity of a registry,
	// whatever their status, by id.
	Registry(ctx context.Context, tenant, registry string) ([]entity.Entity, error)
	// EntityVersions is EntityReader's, inside the transaction.
	EntityVersions(ctx context.Context, tenant, registry, id string) ([]entity.Entity, error)
	// InsertEntity stores e as the open version of its entity.
	InsertEntity(ctx context.Context, e *entity.Entity) error
	// CloseEntity ends the transaction window of an open version.
	CloseEntity(ctx context.Context, tenant, registry, id string, version int, at time.Time) error
	// InsertEntityOp records an operation; SetEntityOp rewrites it (its
	// undo).
	InsertEntityOp(ctx context.Context, op *entity.Op) error
	SetEntityOp(ctx context.Context, op *entity.Op) error
	// EntityOp returns an operation of the tenant by id (false: none).
	EntityOp(ctx context.Context, tenant, id string) (entity.Op, bool, error)
	// LatestByAttribute returns the open versions of the objects whose
	// attribute is attribute and whose first canonical entity id has one
	// of the mention keys (entity.ObjectMention), by insertion order.
	LatestByAttribute(ctx context.Context, tenant, attribute string, mentions []string) ([]tenure.Object, error)
	// LatestByMentions returns the open versions of the objects with an
	// attribute whose first canonical entity id has one of the mention
	// keys, whatever the attribute, by insertion order.
	LatestByMentions(ctx context.Context, tenant string, mentions []string) ([]tenure.Object, error)
}

var _ entity.Registry = (*Engine)(nil)

var errNoRegistry = tenure.Errorf(tenure.CodeUnavailable, "", "this store keeps no entity registry")

// readRegistries returns the registries a principal reads for a query
// naming user ("" : its own and the shared one). Another user's
// registry, unless the principal may act for any user, does not exist
// for it.
func readRegistries(p tenure.Principal, user string) ([]string, error) {
	switch {
	case user == "" && p.UserID == "":
		return []string{""}, nil
	case user == "":
		return []string{p.UserID, ""}, nil
	case user == p.UserID || p.HasPermission(tenure.PermAnyUser):
		return []string{user}, nil
	}
	return nil, tenure.Errorf(tenure.CodeNotFound, "user_id", "no entity registry for user %q", user)
}

// mayCurate checks that p may merge, split and settle the entities of a
// registry it can read: its own, the shared one with
// PermEntitiesWrite or PermRulesWrite, another user's with PermAnyUser.
func mayCurate(p tenure.Principal, registry string) error {
	switch {
	case registry != "" && (registry == p.UserID || p.HasPermission(tenure.PermAnyUser)):
		return nil
	case registry == "" && (p.HasPermission(tenure.PermEntitiesWrite) || p.HasPermission(tenure.PermRulesWrite)):
		return nil
	case registry == "":
		return tenure.Errorf(tenure.CodeForbidden, "id", "changing the shared entity registry needs the %s (or %s) permission", tenure.PermEntitiesWrite, tenure.PermRulesWrite)
	}
	return tenure.Errorf(tenure.CodeForbidden, "user_id", "principal %q may not change the entities of user %q", p.UserID, registry)
}

// Entities lists the entities a principal can read.
func (e *Engine) Entities(ctx context.Context, p tenure.Principal, q entity.Query) ([]entity.Entity, error) {
	out, err := e.entities(ctx, p, q)
	if err != nil {
		return nil, fmt.Errorf("list entities: %w", err)
	}
	return out, nil
}

func (e *Engine) entities(ctx context.Context, p tenure.Principal, q entity.Query) ([]entity.Entity, error) {
	p, err := e.principal(p)
	if err != nil {
		return nil, err
	}
	r, ok := e.b.(EntityReader)
	if !ok {
		return nil, errNoRegistry
	}
	if q.Status != "" && !slices.Contains([]entity.Status{entity.StatusActive, entity.StatusPending, entity.StatusMerged}, q.Status) {
		return nil, tenure.Errorf(tenure.CodeInvalid, "status", "unknown value %q (allowed: active, pending, merged)", q.Status)
	}
	if q.Type != "" && !q.Type.Valid() {
		return nil, tenure.Errorf(tenure.CodeInvalid, "type", "unknown value %q (allowed: person, org, place, project, product, other)", q.Type)
	}
	if q.Limit < 0 || q.Limit > entity.MaxList {
		return nil, tenure.Errorf(tenure.CodeInvalid, "limit", "must be between 0 and %d", entity.MaxList)
	}
	if q.Limit == 0 {
		q.Limit = entity.MaxList
	}
	regs, err := readRegistries(p, q.UserID)
	if err != nil {
		return nil, err
	}
	out, err := r.EntityList(ctx, p.TenantID, EntityFilter{Registries: regs, Status: q.Status, Type: q.Type, Limit: q.Limit})
	if err != nil {
		return nil, wrap("", err)
	}
	return out, nil
}

// Entity returns an entity the principal can read with its versions and
// operations. CodeNotFound: no such entity in the registries it reads.
func (e *Engine) Entity(ctx context.Context, p tenure.Principal, id, user string) (entity.View, error) {
	v, err := e.entityView(ctx, p, id, user)
	if err != nil {
		return entity.View{}, fmt.Errorf("show entity: %w", err)
	}
	return v, nil
}

func (e *Engine) entityView(ctx context.Context, p tenure.Principal, id, user string) (entity.View, error) {
	p, err := e.principal(p)
	if err != nil {
		return entity.View{}, err
	}
	r, ok := e.b.(EntityReader)
	if !ok {
		return entity.View{}, errNoRegistry
	}
	if id == "" {
		return entity.View{}, tenure.Errorf(tenure.CodeInvalid, "id", "required")
	}
	regs, err := readRegistries(p, user)
	if err != nil {
		return entity.View{}, err
	}
	for _, reg := range regs {
		vs, err := r.EntityVersions(ctx, p.TenantID, reg, id)
		if err != nil {
			return entity.View{}, wrap("", err)
		}
		if len(vs) == 0 {
			continue
		}
		ops, err := r.EntityOps(ctx, p.TenantID, reg, id)
		if err != nil {
			return entity.View{}, wrap("", err)
		}
		for i := range ops {
			ops[i] = ops[i].Public()
		}
		return entity.View{Entity: vs[len(vs)-1], Versions: vs, Ops: ops}, nil
	}
	return entity.View{}, tenure.Errorf(tenure.CodeNotFound, "id", "no entity %q", id)
}

// ResolveMention says what a mention would resolve to in the registry an
// object with user_id user would resolve it in (the shared one for none),
// without writing.
func (e *Engine) ResolveMention(ctx context.Context, p tenure.Principal, mention, user string) (entity.Decision, error) {
	var d entity.Decision
	err := func() error {
		p, err := e.principal(p)
		if err != nil {
			return err
		}
		m, err := entity.ParseMention("mention", mention)
		if err != nil {
			return err
		}
		// The registry an object with this user_id resolves in: the
		// shared one for none.
		regs := []string{""}
		if user != "" {
			if regs, err = readRegistries(p, user); err != nil {
				return err
			}
		}
		return e.withTx(ctx, "", func(tx Tx) error {
			ew, ok := tx.(EntityWriter)
			if !ok {
				return errNoRegistry
			}
			reg, err := ew.Registry(ctx, p.TenantID, regs[0])
			if err != nil {
				return err
			}
			d = entity.Resolve(m, reg)
			return nil
		})
	}()
	if err != nil {
		return d, fmt.Errorf("resolve mention: %w", err)
	}
	return d, nil
}

// MergeEntities merges one entity into another of the same registry: the
// mentions of From resolve to Into from now on. Undo with UndoEntityOp.
func (e *Engine) MergeEntities(ctx context.Context, p tenure.Principal, m entity.MergeRequest) (entity.Change, error) {
	if m.From == "" {
		return entity.Change{}, fmt.Errorf("merge entities: %w", tenure.Errorf(tenure.CodeInvalid, "from", "required"))
	}
	if m.Into == "" {
		return entity.Change{}, fmt.Errorf("merge entities: %w", tenure.Errorf(tenure.CodeInvalid, "into", "required"))
	}
	return e.curate(ctx, "merge entities", p, m.From, "from", m.UserID, func(c *curation, from entity.Entity) error {
		into, err := c.find(ctx, m.Into, "into")
		if err != nil {
			return err
		}
		return c.merge(ctx, from, into, m.Reason)
	})
}

// SplitEntity moves aliases of an entity to a new one: mentions that were
// wrongly taken for it. Undo with UndoEntityOp.
func (e *Engine) SplitEntity(ctx context.Context, p tenure.Principal, s entity.SplitRequest) (entity.Change, error) {
	if s.ID == "" {
		return entity.Change{}, fmt.Errorf("split entity: %w", tenure.Errorf(tenure.CodeInvalid, "id", "required"))
	}
	if len(s.Label) > entity.MaxMentionLen {
		return entity.Change{}, fmt.Errorf("split entity: %w", tenure.Errorf(tenure.CodeInvalid, "label", "longer than %d bytes", entity.MaxMentionLen))
	}
	return e.curate(ctx, "split entity", p, s.ID, "id", s.UserID, func(c *curation, src entity.Entity) error {
		label := strings.TrimSpace(s.Label)
		key := ""
		if label != "" {
			m, err := entity.NewMention("label", src.Type, label)
			if err != nil {
				return err
			}
			key = m.Key
		} else if len(s.Aliases) > 0 {
			key = entity.Key(src.Type, entity.KeySlug(s.Aliases[0]))
		}
		id := entity.FreeID(key, c.taken)
		sv, n, op, err := entity.Split(src, s.Aliases, label, id, c.op(s.Reason))
		if err != nil {
			return err
		}
		return c.apply(ctx, op, sv, n)
	})
}

// SettleEntity settles a pending entity: a link into one entity (usually
// one of its candidates) or, with Keep, an entity of its own.
func (e *Engine) SettleEntity(ctx context.Context, p tenure.Principal, s entity.SettleRequest) (entity.Change, error) {
	if s.ID == "" {
		return entity.Change{}, fmt.Errorf("settle entity: %w", tenure.Errorf(tenure.CodeInvalid, "id", "required"))
	}
	if (s.Into == "") == !s.Keep {
		return entity.Change{}, fmt.Errorf("settle entity: %w", tenure.Errorf(tenure.CodeInvalid, "into", "give either into (link) or keep"))
	}
	return e.curate(ctx, "settle entity", p, s.ID, "id", s.UserID, func(c *curation, pend entity.Entity) error {
		if pend.Status != entity.StatusPending {
			return tenure.Errorf(tenure.CodeConflict, "id", "%q is %s, not pending review", pend.ID, pend.Status)
		}
		if s.Keep {
			k, op, err := entity.Keep(pend, c.op(s.Reason))
			if err != nil {
				return err
			}
			return c.apply(ctx, op, k)
		}
		into, err := c.find(ctx, s.Into, "into")
		if err != nil {
			return err
		}
		return c.merge(ctx, pend, into, s.Reason)
	})
}

// UndoEntityOp undoes a merge, link, split or keep. CodeNotFound: no such
// operation in a registry the principal reads.
func (e *Engine) UndoEntityOp(ctx context.Context, p tenure.Principal, opID string) (entity.Change, error) {
	var out entity.Change
	err := func() error {
		p, err := e.principal(p)
		if err != nil {
			return err
		}
		if opID == "" {
			return tenure.Errorf(tenure.CodeInvalid, "op_id", "required")
		}
		return e.inTx(ctx, "", func(tx Tx, clk *txClock) error {
			ew, ok := tx.(EntityWriter)
			if !ok {
				return errNoRegistry
			}
			op, ok, err := ew.EntityOp(ctx, p.TenantID, opID)
			if err != nil {
				return err
			}
			// Another user's operation, like another tenant's, does not
			// exist for the principal.
			if !ok || (op.UserID != "" && op.UserID != p.UserID && !p.HasPermission(tenure.PermAnyUser)) {
				return tenure.Errorf(tenure.CodeNotFound, "op_id", "no entity operation %q", opID)
			}
			if err := mayCurate(p, op.UserID); err != nil {
				return err
			}
			c := &curation{e: e, tx: tx, clk: clk, ew: ew, p: p, registry: op.UserID, now: clk.next(e.opt.Now())}
			if err := c.load(ctx); err != nil {
				return err
			}
			from, err := c.find(ctx, op.From, "op_id")
			if err != nil {
				return err
			}
			var into entity.Entity
			if op.Into != "" {
				if into, err = c.find(ctx, op.Into, "op_id"); err != nil {
					return err
				}
			}
			before := from
			vs, err := ew.EntityVersions(ctx, p.TenantID, op.UserID, op.From)
			if err != nil {
				return err
			}
			for _, v := range vs {
				if v.Version == op.FromVersion {
					before = v
				}
			}
			news, err := entity.Undo(op, from, into, before, p.UserID, c.now)
			if err != nil {
				return err
			}
			undone := op
			undone.UndoneAt, undone.UndoneBy = &c.now, p.UserID
			if err := ew.SetEntityOp(ctx, &undone); err != nil {
				return err
			}
			for i := range news {
				if err := c.store(ctx, &news[i]); err != nil {
					return err
				}
			}
			claims, err := c.unreconcile(ctx, op)
			if err != nil {
				return err
			}
			out = entity.Change{Op: undone.Public(), Entities: news, Claims: claims}
			return nil
		})
	}()
	if err != nil {
		return out, fmt.Errorf("undo entity operation: %w", err)
	}
	return out, nil
}

// curation is one registry operation's state.
type curation struct {
	e        *Engine
	tx       Tx
	clk      *txClock
	ew       EntityWriter
	p        tenure.Principal
	registry string
	now      time.Time
	reg      []entity.Entity
	out      entity.Change
}

func (c *curation) load(ctx context.Context) error {
	var err error
	c.reg, err = c.ew.Registry(ctx, c.p.TenantID, c.registry)
	return err
}

func (c *curation) find(_ context.Context, id, field string) (entity.Entity, error) {
	for _, x := range c.reg {
		if x.ID == id {
			return x, nil
		}
	}
	return entity.Entity{}, tenure.Errorf(tenure.CodeNotFound, field, "no entity %q", id)
}

func (c *curation) taken(id string) bool {
	return slices.ContainsFunc(c.reg, func(x entity.Entity) bool { return x.ID == id })
}

func (c *curation) op(reason string) entity.Op {
	return entity.Op{ID: c.e.opt.NewID(), TenantID: c.p.TenantID, UserID: c.registry, Reason: reason, By: c.p.UserID, At: c.now}
}

// apply records op and stores the new versions.
func (c *curation) apply(ctx context.Context, op entity.Op, vs ...entity.Entity) error {
	for _, v := range vs {
		if v.ID == op.From && v.Version > 1 {
			op.FromVersion = v.Version - 1
		}
	}
	if err := c.ew.InsertEntityOp(ctx, &op); err != nil {
		return err
	}
	for i := range vs {
		if err := c.store(ctx, &vs[i]); err != nil {
			return err
		}
	}
	c.out = entity.Change{Op: op.Public(), Entities: vs}
	return nil
}

// store closes the open version of v's entity, if any, and inserts v.
func (c *curation) store(ctx context.Context, v *entity.Entity) error {
	v.TenantID, v.UserID, v.TxStart, v.TxEnd = c.p.TenantID, c.registry, c.now, nil
	if v.Version > 1 {
		if err := c.ew.CloseEntity(ctx, v.TenantID, v.UserID, v.ID, v.Version-1, c.now); err != nil {
			return err
		}
	}
	return c.ew.InsertEntity(ctx, v)
}

// curate runs a registry operation on the entity id (named by field) of
// the first registry the principal reads that holds it.
func (e *Engine) curate(ctx context.Context, op string, p tenure.Principal, id, field, user string,
	fn func(c *curation, target entity.Entity) error) (entity.Change, error) {
	var out entity.Change
	err := func() error {
		p, err := e.principal(p)
		if err != nil {
			return err
		}
		regs, err := readRegistries(p, user)
		if err != nil {
			return err
		}
		return e.inTx(ctx, "", func(tx Tx, clk *txClock) error {
			ew, ok := tx.(EntityWriter)
			if !ok {
				return errNoRegistry
			}
			now := clk.next(e.opt.Now())
			for _, reg := range regs {
				c := &curation{e: e, tx: tx, clk: clk, ew: ew, p: p, registry: reg, now: now}
				if err := c.load(ctx); err != nil {
					return err
				}
				target, err := c.find(ctx, id, field)
				if err != nil {
					continue
				}
				if err := mayCurate(p, reg); err != nil {
					return err
				}
				if err := fn(c, target); err != nil {
					return err
				}
				out = c.out
				return nil
			}
			return tenure.Errorf(tenure.CodeNotFound, field, "no entity %q", id)
		})
	}()
	if err != nil {
		return out, fmt.Errorf("%s: %w", op, err)
	}
	return out, nil
}

// Resolution on write.

// registry returns the writer's cached open versions of a registry (nil,
// false: the backend keeps none).
func (w *writer) registry(ctx context.Context, tenant, reg string) (EntityWriter, []entity.Entity, error) {
	ew, ok := w.tx.(EntityWriter)
	if !ok {
		return nil, nil, nil
	}
	if w.entities == nil {
		w.entities = map[string][]entity.Entity{}
	}
	if r, ok := w.entities[reg]; ok {
		return ew, r, nil
	}
	r, err := ew.Registry(ctx, tenant, reg)
	if err != nil {
		return nil, nil, err
	}
	w.entities[reg] = r
	return ew, r, nil
}

// resolveEntities resolves an object's canonical entity ids in its
// registry (its user's; the shared one for objects of no user): each
// binds to an entity (adding the surface form to it), becomes a pending
// entity or a new one. Ids that name no entity (no letter or digit) are
// left alone.
func (w *writer) resolveEntities(ctx context.Context, o *tenure.Object) error {
	for _, id := range o.CanonicalEntityIDs {
		m, err := entity.ParseMention("canonical_entity_ids", id)
		if err != nil {
			continue
		}
		// An id in slug form ("person:john_doe") shows as "John Doe"; a
		// surface form ("person:Dr. Lena Ortiz") as written.
		if strings.Contains(m.Name, "_") || m.Name == strings.ToLower(m.Name) {
			m.Name = entity.Label(entity.KeySlug(m.Key))
		}
		if _, err := w.resolve(ctx, o.TenantID, o.UserID, m); err != nil {
			return err
		}
	}
	return nil
}

// resolve binds a mention in a registry and returns its entity.
func (w *writer) resolve(ctx context.Context, tenant, reg string, m entity.Mention) (entity.Entity, error) {
	ew, r, err := w.registry(ctx, tenant, reg)
	if err != nil || ew == nil {
		return entity.Entity{}, err
	}
	d := entity.Resolve(m, r)
	var n entity.Entity
	if d.Action == entity.Link {
		i := slices.IndexFunc(r, func(x entity.Entity) bool { return x.ID == d.EntityID })
		cur := r[i]
		// A new surface form of a known alias is not worth a version.
		if slices.Contains(cur.Aliases, m.Key) {
			return cur, nil
		}
		var changed bool
		if n, changed = entity.AddAlias(cur, m); !changed {
			return cur, nil
		}
		n.Version++
		if err := ew.CloseEntity(ctx, tenant, reg, cur.ID, cur.Version, w.now); err != nil {
			return n, err
		}
	} else {
		id := entity.FreeID(m.Key, func(id string) bool {
			return slices.ContainsFunc(r, func(x entity.Entity) bool { return x.ID == id })
		})
		n = entity.NewEntity(m, id, tenant, reg, d.Candidates)
		if d.Action == entity.New {
			n.Candidates, n.Status = nil, entity.StatusActive
		}
	}
	n.TenantID, n.UserID, n.TxStart, n.TxEnd, n.ChangedBy, n.OpID = tenant, reg, w.now, nil, w.p.UserID, ""
	if err := ew.InsertEntity(ctx, &n); err != nil {
		return n, err
	}
	if i := slices.IndexFunc(r, func(x entity.Entity) bool { return x.ID == n.ID }); i >= 0 {
		r[i] = n
	} else {
		w.entities[reg] = append(r, n)
	}
	return n, nil
}

// entitySlot returns the mention keys of the entity an object's
// attribute is about (all the aliases of its first entity) and the key of
// its entity slot; ok is false when the object has none.
func (w *writer) entitySlot(ctx context.Context, o *tenure.Object) (EntityWriter, []string, string, bool, error) {
	key, ok := entity.ObjectMention(o)
	if !ok {
		return nil, nil, "", false, nil
	}
	ew, r, err := w.registry(ctx, o.TenantID, o.UserID)
	if err != nil || ew == nil {
		return nil, nil, "", false, err
	}
	mentions, id := []string{key}, key
	for _, x := range r {
		if x.Status != entity.StatusMerged && slices.Contains(x.Aliases, key) {
			mentions, id = x.Aliases, x.ID
			break
		}
	}
	sandbox := ""
	if o.Scope.Sandboxed() {
		sandbox = o.ScopeID
	}
	slot := strings.Join([]string{o.TenantID, "@entity", id, o.Attribute, o.UserID, o.ProjectID, o.SessionID, o.TaskID, sandbox}, "\x1f")
	return ew, mentions, slot, true, nil
}

// attributeClaims returns the active claims about the same entity's same
// attribute as o in o's scope, whatever their keys.
func (w *writer) attributeClaims(ctx context.Context, o *tenure.Object) ([]tenure.Object, error) {
	ew, mentions, _, ok, err := w.entitySlot(ctx, o)
	if err != nil || !ok {
		return nil, err
	}
	all, err := ew.LatestByAttribute(ctx, o.TenantID, o.Attribute, mentions)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(x tenure.Object) bool {
		return x.Status != tenure.StatusActive || x.Attribute != o.Attribute || !sameScope(o, &x)
	}), nil
}

// slotKeys returns the slot keys o's conflicts are filed under: its
// key's slot and, when it has one, its entity slot.
func (w *writer) slotKeys(ctx context.Context, o *tenure.Object) ([]string, error) {
	_, _, slot, ok, err := w.entitySlot(ctx, o)
	if err != nil || !ok {
		return []string{o.SlotKey()}, err
	}
	return []string{slot, o.SlotKey()}, nil
}
