package tenure

import (
	"fmt"
	"net/url"
	"strings"
)

// WriteRule is one row of the write-authority policy: an object whose
// Field has Value may be written only by a principal holding Permission
// (and, when MinRank is set, ranked at least that high).
type WriteRule struct {
	// Field is the JSON name of the object field the rule reads: layer,
	// object_type, constraint_type or authority_level.
	Field string `json:"field"`
	Value string `json:"value"`
	// Permission is required; MinRank, when set, is required too
	// (RankTop names the hierarchy's top rank whatever it is called).
	Permission string `json:"permission"`
	MinRank    string `json:"min_rank,omitempty"`
	// Why is shown in the error that refuses a write.
	Why string `json:"why"`
}

// RankTop in a WriteRule's MinRank names the hierarchy's highest rank.
const RankTop = "@top"

// DefaultWritePolicy is who may write content that reaches the system role
// or binds other principals: platform and developer rules, tenant and
// policy layers, policy rules and policy constraints, tool definitions,
// and the environment. Everything else may be written by any principal of
// the tenant; it binds at most its writer (see Object.Binding).
var DefaultWritePolicy = []WriteRule{
	{Field: "authority_level", Value: "0", Permission: PermRulesWrite, MinRank: RankTop, Why: "platform rules bind every compilation in the tenant"},
	{Field: "authority_level", Value: "1", Permission: PermRulesWrite, Why: "developer rules bind every compilation in the tenant"},
	{Field: "layer", Value: string(LayerPolicy), Permission: PermRulesWrite, Why: "the policy layer is compiled as binding rules"},
	{Field: "layer", Value: string(LayerTenant), Permission: PermRulesWrite, Why: "the tenant layer is compiled as binding rules"},
	{Field: "object_type", Value: string(TypePolicyRule), Permission: PermRulesWrite, Why: "policy rules are compiled as binding rules"},
	{Field: "constraint_type", Value: string(ConstraintPolicy), Permission: PermRulesWrite, Why: "policy constraints are compiled as binding rules"},
	{Field: "layer", Value: string(LayerTool), Permission: PermRulesWrite, Why: "tool definitions are placed in the system role"},
	{Field: "object_type", Value: string(TypeToolSchema), Permission: PermRulesWrite, Why: "tool definitions are placed in the system role"},
	{Field: "layer", Value: string(LayerEnvironment), Permission: PermEnvironmentWrite, Why: "the environment is written by external systems"},
}

// policyField returns the value of the object field a WriteRule names.
func (o *Object) policyField(field string) string {
	switch field {
	case "layer":
		return string(o.Layer)
	case "object_type":
		return string(o.ObjectType)
	case "constraint_type":
		return string(o.ConstraintType)
	case "authority_level":
		return fmt.Sprint(o.Level())
	}
	return ""
}

// CheckWrite applies a write policy (DefaultWritePolicy when rules is nil)
// to a defaulted object: the first rule the object matches and the
// principal fails refuses the write with CodeForbidden naming the field.
func (h Hierarchy) CheckWrite(p Principal, o *Object, rules []WriteRule) error {
	if rules == nil {
		rules = DefaultWritePolicy
	}
	for _, r := range rules {
		if o.policyField(r.Field) != r.Value {
			continue
		}
		if !p.HasPermission(r.Permission) {
			return Errorf(CodeForbidden, r.Field, "%s %q needs the permission %s (%s)", r.Field, r.Value, r.Permission, r.Why)
		}
		if r.MinRank != "" {
			min := r.MinRank
			if min == RankTop {
				min = h.Top()
			}
			if h.Rank(p.Authority) < h.Rank(min) {
				return Errorf(CodeForbidden, r.Field, "%s %q needs the rank %s or higher (%s)", r.Field, r.Value, min, r.Why)
			}
		}
	}
	return nil
}

// ValidateWritePolicy checks that every rule names a known field, a
// permission and, when set, a rank of the hierarchy.
func (h Hierarchy) ValidateWritePolicy(rules []WriteRule) error {
	for i, r := range rules {
		field := fmt.Sprintf("write_policy[%d]", i)
		switch r.Field {
		case "layer", "object_type", "constraint_type", "authority_level":
		default:
			return Errorf(CodeInvalid, field+".field", "unknown field %q (allowed: layer, object_type, constraint_type, authority_level)", r.Field)
		}
		if r.Value == "" || r.Permission == "" {
			return Errorf(CodeInvalid, field, "value and permission are required")
		}
		if r.MinRank != "" && r.MinRank != RankTop && h.Rank(r.MinRank) < 0 {
			return Errorf(CodeInvalid, field+".min_rank", "unknown rank %q", r.MinRank)
		}
	}
	return nil
}

// ExternalOrigin reports whether a source origin names content fetched
// from outside the tenant's principals: the web, files, object stores,
// mail. Such content is retrieved data (authority level 4) whatever the
// writer claims.
func ExternalOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "file", "ftp", "ftps", "s3", "gs", "mailto", "imap", "tool-result":
		return true
	}
	return false
}

// Retrieved reports whether an object is retrieved data: a retrieved
// passage, the corpus layer, or content of an external origin. Retrieved
// data is authority level 4, fenced as untrusted and never promoted.
func (o *Object) Retrieved() bool {
	return o.ObjectType == TypeRetrievedPassage || o.Layer == LayerCorpus || ExternalOrigin(o.SourceOrigin) ||
		(o.AuthorityLevel != nil && *o.AuthorityLevel == LevelRetrieved)
}
