package tenure

import (
	"errors"
	"fmt"
)

// Code classifies an Error. Codes are stable strings used on the wire (HTTP
// and MCP error bodies) and map to HTTP statuses and CLI exit codes through a
// single table.
type Code string

// Error codes.
const (
	CodeInvalid         Code = "invalid"         // bad input; nothing was written
	CodeNotFound        Code = "not_found"       // missing, or not visible to the caller
	CodeForbidden       Code = "forbidden"       // visible but not allowed for the caller
	CodeConflict        Code = "conflict"        // the request contradicts stored state
	CodeUnauthenticated Code = "unauthenticated" // no or bad credentials
	CodeTooLarge        Code = "too_large"       // request or field exceeds a limit
	CodeUnavailable     Code = "unavailable"     // a dependency is down or the store is closed
	CodeTimeout         Code = "timeout"         // the operation ran out of time
	CodeInternal        Code = "internal"        // a bug or an unexpected failure
	// CodeMethodNotAllowed: the path exists but not with this HTTP method.
	CodeMethodNotAllowed Code = "method_not_allowed"
)

// Error is the one error type of Tenure. Field names the offending input
// field (using its JSON name) when there is one.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	Err     error  `json:"-"`
}

// Error implements error.
func (e *Error) Error() string {
	msg := e.Message
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code, field and formatted message.
func Errorf(code Code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Internal wraps an unexpected failure as a CodeInternal error.
func Internal(op string, err error) *Error {
	return &Error{Code: CodeInternal, Message: op, Err: err}
}

// ErrorCode returns the code of the first *Error in err's chain, CodeInternal
// for any other non-nil error and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorField returns the field of the first *Error in err's chain.
func ErrorField(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// AsError returns the first *Error in err's chain, or wraps err as internal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal("unexpected error", err)
}

// codeMapping is the single table from codes to transport-level codes.
type codeMapping struct {
	HTTP int // HTTP status
	Exit int // CLI exit status
	RPC  int // JSON-RPC / MCP error code
}

var codeTable = map[Code]codeMapping{
	CodeInvalid:         {400, 2, -32602},
	CodeNotFound:        {404, 3, -32002},
	CodeForbidden:       {403, 4, -32003},
	CodeConflict:        {409, 5, -32009},
	CodeUnauthenticated: {401, 6, -32001},
	CodeTooLarge:        {413, 7, -32013},
	CodeUnavailable:     {503, 8, -32010},
	CodeTimeout:         {504, 9, -32011},
	CodeInternal:        {500, 1, -32603},
	// Only HTTP meets a wrong method; elsewhere it is a usage error.
	CodeMethodNotAllowed: {405, 2, -32601},
}

func mapping(c Code) codeMapping {
	if m, ok := codeTable[c]; ok {
		return m
	}
	return codeTable[CodeInternal]
}

// HTTPStatus returns the HTTP status for a code.
func HTTPStatus(c Code) int { return mapping(c).HTTP }

// ExitCode returns the CLI exit status for a code.
func ExitCode(c Code) int { return mapping(c).Exit }

// RPCCode returns the JSON-RPC (MCP) error code for a code.
func RPCCode(c Code) int { return mapping(c).RPC }
