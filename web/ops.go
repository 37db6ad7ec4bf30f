package web

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/tenure-dev/tenure"
)

// metricLine is one metric at a glance.
type metricLine struct {
	Name, Help string
	Value      float64
	Labels     string
}

// glance lists the metrics the operations page shows, by name.
var glance = []string{"tenure_http_requests_total", "tenure_store_operations_total", "tenure_compile_duration_seconds",
	"tenure_envelope_tokens", "tenure_compile_omitted_objects_total", "tenure_traces_cached", "tenure_digest_queue_length",
	"tenure_admission_in_flight", "tenure_admission_refused_total"}

type opsView struct {
	Version  string
	Ready    string
	CanRead  bool
	Metrics  []metricLine
	Sessions int
}

// ops shows health, and the key metrics to holders of metrics:read (the
// metrics count every tenant's requests, as GET /metrics does).
func (h *Handler) ops(w http.ResponseWriter, r *http.Request, c *call) error {
	v := opsView{Version: tenure.Version(), Ready: "ready", CanRead: c.p.HasPermission(tenure.PermMetricsRead)}
	if h.opt.Ready != nil {
		if err := h.opt.Ready(r.Context()); err != nil {
			v.Ready = "not ready: " + err.Error()
		}
	}
	if v.CanRead && h.opt.Metrics != nil {
		fams, err := h.opt.Metrics.Gather()
		if err != nil {
			return tenure.Internal("gather metrics", err)
		}
		for _, f := range fams {
			if !slices.Contains(glance, f.GetName()) && !strings.HasPrefix(f.GetName(), "tenure_") {
				continue
			}
			// Sum a family's series per label set of at most one label.
			byLabel := map[string]float64{}
			for _, m := range f.GetMetric() {
				var parts []string
				for _, l := range m.GetLabel() {
					if l.GetName() == "code" || l.GetName() == "op" || l.GetName() == "reason" || l.GetName() == "limiter" {
						parts = append(parts, l.GetName()+"="+l.GetValue())
					}
				}
				var val float64
				switch {
				case m.Counter != nil:
					val = m.Counter.GetValue()
				case m.Gauge != nil:
					val = m.Gauge.GetValue()
				case m.Histogram != nil:
					val = float64(m.Histogram.GetSampleCount())
				}
				byLabel[strings.Join(parts, ",")] += val
			}
			for l, val := range byLabel {
				v.Metrics = append(v.Metrics, metricLine{Name: f.GetName(), Help: f.GetHelp(), Labels: l, Value: val})
			}
		}
		sort.Slice(v.Metrics, func(i, j int) bool {
			a, b := v.Metrics[i], v.Metrics[j]
			return a.Name < b.Name || a.Name == b.Name && a.Labels < b.Labels
		})
	}
	return h.render(w, r, c, http.StatusOK, "ops.html", "Operations", "ops", v)
}

type keysView struct {
	Keys      []tenure.APIKey
	Created   *tenure.APIKey
	Secret    string
	Err       *tenure.Error
	Ranks     []string
	Clearance []string
	Form      keyForm
}

type keyForm struct {
	Name, User, Authority, Clearance, Permissions, Roles string
}

// admin refuses principals without keys:admin, and servers without key
// management.
func (h *Handler) admin(c *call) error {
	if !c.p.HasPermission(tenure.PermKeysAdmin) {
		return tenure.Errorf(tenure.CodeForbidden, "", "managing keys takes the %s permission", tenure.PermKeysAdmin)
	}
	if h.opt.KeyAdmin == nil {
		return tenure.Errorf(tenure.CodeUnavailable, "", "this server does not manage keys")
	}
	return nil
}

func (h *Handler) keysView(r *http.Request, c *call) (keysView, error) {
	ks, err := h.opt.KeyAdmin.Keys(r.Context(), c.p.TenantID)
	var cl []string
	for _, x := range tenure.Classifications {
		if x.Rank() <= c.p.Clearance.Rank() {
			cl = append(cl, string(x))
		}
	}
	var ranks []string
	for _, x := range h.opt.Hierarchy.Ranks {
		if h.opt.Hierarchy.Rank(x) <= h.opt.Hierarchy.Rank(c.p.Authority) {
			ranks = append(ranks, x)
		}
	}
	return keysView{Keys: ks, Ranks: ranks, Clearance: cl}, err
}

// keysPage lists the keys of the admin's tenant.
func (h *Handler) keysPage(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := h.admin(c); err != nil {
		return err
	}
	v, err := h.keysView(r, c)
	if err != nil {
		return err
	}
	return h.render(w, r, c, http.StatusOK, "keys.html", "API keys", "keys", v)
}

// createKey creates a key in the admin's tenant holding no more than the
// admin: its authority or a lower one, its clearance or a lower one, a
// subset of its permissions. The secret is shown once.
func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := h.admin(c); err != nil {
		return err
	}
	f := keyForm{Name: strings.TrimSpace(r.PostFormValue("name")), User: strings.TrimSpace(r.PostFormValue("user")),
		Authority: r.PostFormValue("authority"), Clearance: r.PostFormValue("clearance"),
		Permissions: r.PostFormValue("permissions"), Roles: r.PostFormValue("roles")}
	p := tenure.Principal{UserID: f.User, TenantID: c.p.TenantID, Authority: f.Authority,
		Clearance: tenure.Classification(f.Clearance), Roles: fields(f.Roles), Permissions: fields(f.Permissions)}
	err := func() error {
		if err := p.Validate(h.opt.Hierarchy); err != nil {
			return err
		}
		if h.opt.Hierarchy.Rank(p.Authority) > h.opt.Hierarchy.Rank(c.p.Authority) {
			return tenure.Errorf(tenure.CodeForbidden, "authority", "must be %q or lower", c.p.Authority)
		}
		if p.Clearance.Rank() > c.p.Clearance.Rank() {
			return tenure.Errorf(tenure.CodeForbidden, "clearance", "must be %q or lower", c.p.Clearance)
		}
		for _, perm := range p.Permissions {
			if !c.p.HasPermission(perm) {
				return tenure.Errorf(tenure.CodeForbidden, "permissions", "you do not hold %q", perm)
			}
		}
		return nil
	}()
	var (
		k      tenure.APIKey
		secret string
	)
	if err == nil {
		k, secret, err = h.opt.KeyAdmin.CreateKey(r.Context(), tenure.APIKey{Name: f.Name, Principal: p})
	}
	v, lerr := h.keysView(r, c)
	if lerr != nil {
		return lerr
	}
	v.Form = f
	if err != nil {
		te := tenure.AsError(err)
		if te.Code != tenure.CodeInvalid && te.Code != tenure.CodeForbidden {
			return err
		}
		v.Err = te
		return h.render(w, r, c, tenure.HTTPStatus(te.Code), "keys.html", "API keys", "keys", v)
	}
	v.Created, v.Secret, v.Form = &k, secret, keyForm{}
	return h.render(w, r, c, http.StatusOK, "keys.html", "API keys", "keys", v)
}

// revokeKey revokes a key of the admin's tenant; another tenant's key
// answers like a missing one.
func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, c *call) error {
	if err := h.admin(c); err != nil {
		return err
	}
	ks, err := h.opt.KeyAdmin.Keys(r.Context(), c.p.TenantID)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	if !slices.ContainsFunc(ks, func(k tenure.APIKey) bool { return k.ID == id }) {
		return tenure.Errorf(tenure.CodeNotFound, "id", "no API key %q", id)
	}
	if _, err := h.opt.KeyAdmin.RevokeKey(r.Context(), id); err != nil {
		return err
	}
	http.Redirect(w, r, Prefix+"keys", http.StatusSeeOther)
	return nil
}

// fields splits a comma- or space-separated list.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}
