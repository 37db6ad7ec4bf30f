package llm

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/tenure-dev/tenure"
)

// StatusError maps an HTTP error status of a model API to Tenure's codes,
// with a message naming the API ("chat completion endpoint") and what was
// sent to it ("chat completion request"). apiMessage, the server's own
// explanation, is kept (clipped) where it says what to fix, and dropped for
// auth errors, whose messages can echo part of the key. err is wrapped.
func StatusError(status int, api, request, apiMessage string, err error) *tenure.Error {
	withAPI := func(msg string) string {
		if m := Clip(apiMessage); m != "" {
			return msg + ": " + m
		}
		return msg
	}
	code, msg := tenure.CodeUnavailable, withAPI(fmt.Sprintf("%s failed with status %d", api, status))
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		code, msg = tenure.CodeUnauthenticated, fmt.Sprintf("%s rejected the API key (status %d)", api, status)
	case status == http.StatusTooManyRequests:
		msg = fmt.Sprintf("rate limited by %s (status 429)", api)
	case status == http.StatusRequestTimeout:
		code, msg = tenure.CodeTimeout, fmt.Sprintf("%s timed out (status 408)", api)
	case status == http.StatusRequestEntityTooLarge:
		code, msg = tenure.CodeTooLarge, withAPI(request+" too large (status 413)")
	case status == http.StatusNotFound:
		code, msg = tenure.CodeInvalid, withAPI(api+" or model not found (status 404); check the base URL and model")
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		code, msg = tenure.CodeInvalid, withAPI(fmt.Sprintf("%s rejected (status %d)", request, status))
	case status >= 500:
		msg = withAPI(fmt.Sprintf("%s server error (status %d)", api, status))
	}
	return &tenure.Error{Code: code, Message: msg, Err: err}
}

// Clip shortens a server-provided message for inclusion in an error.
func Clip(s string) string {
	const maxMessage = 300
	s = strings.TrimSpace(s)
	if len(s) > maxMessage {
		return strings.ToValidUTF8(s[:maxMessage], "") + "…"
	}
	return s
}
