package tenure

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
)

// APIKey is a credential of the HTTP API. The secret a client presents is
// shown once, when the key is created; stores keep only its SHA-256 hash
// (see HashAPIKey). Every request made with the key runs as its Principal,
// whatever the request body says.
type APIKey struct {
	// ID names the key for listing and revoking; it is not a secret.
	ID string `json:"id"`
	// Name is a free label ("ci", "alice's laptop").
	Name      string     `json:"name,omitempty"`
	Principal Principal  `json:"principal"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// APIKeyPrefix starts every API key secret, so that a leaked key is easy to
// recognize (and to scan for).
const APIKeyPrefix = "tk_"

// maxAPIKeyLen bounds a presented secret before it is hashed.
const maxAPIKeyLen = 256

// NewAPIKeySecret returns a fresh random key secret: APIKeyPrefix and 26
// base32 characters (130 bits from crypto/rand).
func NewAPIKeySecret() string { return APIKeyPrefix + rand.Text() }

// HashAPIKey returns the hex SHA-256 of a key secret: what stores keep and
// look keys up by. A fast hash is enough because secrets are random.
func HashAPIKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CheckAPIKeySecret checks the form of a presented secret before it is
// looked up. Errors: CodeUnauthenticated.
func CheckAPIKeySecret(secret string) error {
	if secret == "" {
		return Errorf(CodeUnauthenticated, "", "missing API key")
	}
	if !strings.HasPrefix(secret, APIKeyPrefix) || len(secret) > maxAPIKeyLen {
		return Errorf(CodeUnauthenticated, "", "malformed API key (keys start with %q)", APIKeyPrefix)
	}
	return nil
}

// Revoked reports whether the key was revoked.
func (k *APIKey) Revoked() bool { return k.RevokedAt != nil }

// Validate checks the key's name and principal against the hierarchy;
// a key needs a tenant (defaults are applied by WithDefaults, not here).
func (k *APIKey) Validate(h Hierarchy) error {
	if err := checkID("name", k.Name, false); err != nil {
		return err
	}
	if err := k.Principal.Validate(h); err != nil {
		return prefixed("principal.", err)
	}
	return nil
}

func prefixed(prefix string, err error) error {
	e := *AsError(err)
	if e.Field != "" {
		e.Field = prefix + e.Field
	}
	return &e
}

// principalKey is the context key of the authenticated principal.
type principalKey struct{}

// ContextWithPrincipal returns ctx carrying p as the authenticated
// principal of a request. Transports (the HTTP server) set it after
// checking credentials; handlers mounted behind them (MCP) read it with
// PrincipalFromContext instead of trusting anything in the request body.
func ContextWithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFromContext returns the authenticated principal ctx carries.
func PrincipalFromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// NewAPIKey prepares k for storing: its principal with h's defaults
// (DefaultHierarchy when h has no ranks), validated, a fresh id, created
// at now and not revoked; it returns the key's secret and the principal
// encoded as JSON, which is what a store keeps beside the secret's hash.
// Both stores create keys through it, so a key means the same on either.
// Errors: CodeInvalid.
func NewAPIKey(k APIKey, h Hierarchy, now time.Time) (key APIKey, secret string, principal []byte, err error) {
	if len(h.Ranks) == 0 {
		h = DefaultHierarchy
	}
	k.Principal = k.Principal.WithDefaults(h)
	if err := k.Validate(h); err != nil {
		return k, "", nil, err
	}
	var id [8]byte
	rand.Read(id[:])
	k.ID = "key_" + hex.EncodeToString(id[:])
	k.CreatedAt = now.UTC()
	k.RevokedAt = nil
	body, err := json.Marshal(k.Principal)
	if err != nil {
		return k, "", nil, Internal("encode principal", err)
	}
	return k, NewAPIKeySecret(), body, nil
}
