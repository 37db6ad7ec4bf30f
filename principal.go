package tenure

import (
	"slices"
	"strings"
)

// Principal is who is asking: the identity every read and write is evaluated
// as.
type Principal struct {
	UserID       string   `json:"user_id"`
	UserName     string   `json:"user_name,omitempty"`
	TenantID     string   `json:"tenant_id"`
	Organization string   `json:"organization,omitempty"`
	Department   string   `json:"department,omitempty"`
	Roles        []string `json:"roles,omitempty"`
	// Authority is the principal's rank in the authority Hierarchy
	// (by default policy > manager > employee > intern > guest).
	Authority string `json:"authority"`
	// Clearance is the most sensitive classification the principal may read.
	Clearance   Classification `json:"clearance"`
	Permissions []string       `json:"permissions,omitempty"`
	// PersonaID is the persona the principal acts as ("coach"), or empty
	// for none. Memories are global by default and every persona reads
	// them; an object or message that names a persona is read only by
	// principals acting as that persona (see CanRead). An API key may bind
	// its principal to a persona.
	PersonaID string `json:"persona_id,omitempty"`
}

// Permissions a principal may hold.
const (
	// PermEnvironmentWrite allows writes to the environment layer, which is
	// otherwise read-only to conversation writers.
	PermEnvironmentWrite = "environment:write"
	// PermAnyUser allows reading and writing other users' scoped objects.
	PermAnyUser = "scope:any_user"
	// PermRulesWrite allows writing binding content: platform (with the top
	// rank) and developer rules, the policy and tenant layers, policy rules
	// and constraints, and tool definitions (see DefaultWritePolicy).
	PermRulesWrite = "rules:write"
	// PermTraceRead allows reading every compile trace of the tenant, not
	// only one's own.
	PermTraceRead = "trace:read"
	// PermTraceFull shows, in the traces the principal reads, the objects
	// withheld by the scope and permission gates (ids and counts); without
	// it a withheld object is simply absent, as if it did not exist.
	PermTraceFull = "trace:full"
	// PermMetricsRead allows reading the server's metrics (GET /metrics),
	// which count every tenant's requests: a server-wide permission, not
	// granted by any rank.
	PermMetricsRead = "metrics:read"
	// PermEntitiesWrite allows merging, splitting and settling the
	// entities of the tenant's shared registry (a user curates its own
	// registry without it; see docs/entities.md). PermRulesWrite allows
	// it too.
	PermEntitiesWrite = "entities:write"
	// PermKeysAdmin allows managing the API keys of the principal's tenant
	// in the web inspector: listing them, creating keys that hold no more
	// than the principal (its authority or a lower one, its clearance or
	// a lower one, a subset of its permissions) and revoking them.
	PermKeysAdmin = "keys:admin"
)

// DefaultTenant is the tenant used when none is given.
const DefaultTenant = "default"

// HasPermission reports whether the principal holds perm.
func (p Principal) HasPermission(perm string) bool { return slices.Contains(p.Permissions, perm) }

// roleSet returns the principal's roles plus its authority name, so that
// allow/deny lists may name either.
func (p Principal) roleSet() []string {
	if p.Authority == "" {
		return p.Roles
	}
	return append(slices.Clip(p.Roles), p.Authority)
}

// Validate checks the principal against the hierarchy.
func (p Principal) Validate(h Hierarchy) error {
	if err := checkID("tenant_id", p.TenantID, true); err != nil {
		return err
	}
	if err := checkID("user_id", p.UserID, false); err != nil {
		return err
	}
	if err := checkID("persona_id", p.PersonaID, false); err != nil {
		return err
	}
	if p.Authority != "" && h.Rank(p.Authority) < 0 {
		return Errorf(CodeInvalid, "authority", "unknown value %q (allowed: %s)", p.Authority, strings.Join(h.Ranks, ", "))
	}
	if p.Clearance != "" {
		if err := checkVocab("clearance", p.Clearance, Classifications); err != nil {
			return err
		}
	}
	for _, r := range p.Roles {
		if err := checkID("roles", r, true); err != nil {
			return err
		}
	}
	for _, r := range p.Permissions {
		if err := checkID("permissions", r, true); err != nil {
			return err
		}
	}
	return nil
}

// WithDefaults fills the tenant, clearance and authority when empty.
func (p Principal) WithDefaults(h Hierarchy) Principal {
	if p.TenantID == "" {
		p.TenantID = DefaultTenant
	}
	if p.Clearance == "" {
		p.Clearance = Public
	}
	if p.Authority == "" {
		p.Authority = h.Lowest()
	}
	return p
}

// CanRead reports whether the principal may read o: same tenant, o names
// no persona or the principal's, a clearance at least o's
// classification, one of o's allowed roles (when any are listed) and none
// of its denied roles. Scope is checked separately.
func (p Principal) CanRead(o *Object) bool {
	if o.TenantID != p.TenantID || !p.InPersona(o.PersonaID) {
		return false
	}
	cl := p.Clearance
	if cl == "" {
		cl = Public
	}
	if o.SecurityClassification.Rank() > cl.Rank() {
		return false
	}
	roles := p.roleSet()
	for _, r := range o.PermissionScope.DenyRoles {
		if slices.Contains(roles, r) {
			return false
		}
	}
	if len(o.PermissionScope.AllowRoles) == 0 {
		return true
	}
	for _, r := range o.PermissionScope.AllowRoles {
		if slices.Contains(roles, r) {
			return true
		}
	}
	return false
}

// InPersona reports whether something scoped to persona (empty: global)
// is visible to the principal: global things are visible to every
// persona, persona-scoped ones only to that persona.
func (p Principal) InPersona(persona string) bool {
	return persona == "" || persona == p.PersonaID
}

// WithPersona returns the principal acting as persona: a principal bound
// to a persona may only name its own (CodeForbidden otherwise); one bound
// to none may act as any persona of its user, as a request chooses which
// persona it talks to. An empty persona changes nothing.
func (p Principal) WithPersona(persona string) (Principal, error) {
	if persona == "" || persona == p.PersonaID {
		return p, nil
	}
	if p.PersonaID != "" {
		return p, Errorf(CodeForbidden, "persona_id", "the principal acts as persona %q", p.PersonaID)
	}
	if err := checkID("persona_id", persona, false); err != nil {
		return p, err
	}
	p.PersonaID = persona
	return p, nil
}

// CanSee reports whether o exists for the principal: CanRead, and o names
// no user, the principal's own, or the principal may act for any user
// (PermAnyUser). A user's objects are access-controlled like a
// classification; projects, sessions and tasks only narrow reads.
func (p Principal) CanSee(o *Object) bool {
	return p.CanRead(o) && (o.UserID == "" || o.UserID == p.UserID || p.HasPermission(PermAnyUser))
}

// Hierarchy is the ordered authority hierarchy of principals, highest first.
type Hierarchy struct {
	Ranks []string `json:"ranks"`
}

// DefaultHierarchy is policy > manager > employee > intern > guest.
var DefaultHierarchy = Hierarchy{Ranks: []string{"policy", "manager", "employee", "intern", "guest"}}

// Rank returns a number that grows with authority (the lowest rank is 0),
// or -1 for a name not in the hierarchy.
func (h Hierarchy) Rank(name string) int {
	i := slices.Index(h.ranks(), name)
	if i < 0 {
		return -1
	}
	return len(h.ranks()) - 1 - i
}

// Top returns the highest rank's name.
func (h Hierarchy) Top() string { return h.ranks()[0] }

// Lowest returns the lowest rank's name.
func (h Hierarchy) Lowest() string { r := h.ranks(); return r[len(r)-1] }

func (h Hierarchy) ranks() []string {
	if len(h.Ranks) == 0 {
		return DefaultHierarchy.Ranks
	}
	return h.Ranks
}

// Validate checks that the hierarchy has distinct, non-empty names.
func (h Hierarchy) Validate() error {
	seen := map[string]bool{}
	for _, r := range h.Ranks {
		if err := checkID("ranks", r, true); err != nil {
			return err
		}
		if seen[r] {
			return Errorf(CodeInvalid, "ranks", "duplicate rank %q", r)
		}
		seen[r] = true
	}
	return nil
}
