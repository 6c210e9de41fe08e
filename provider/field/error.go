package field

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is one problem with one input. It prints on one line: the path, what is wrong, the
// name meant in parentheses, and what to do instead after a semicolon:
//
//	nodePools[0].disruption.consolidationPolicyy: unknown property (did you mean consolidationPolicy?)
//	nodePools[0].name: "default" is an EKS built-in pool (...); choose another name
type Error struct {
	Path *Path
	// Of says which input the path is when the program did not write it, in parentheses after
	// the path: `nodeClasses[0].amiAlias (the default class): ...`.
	Of string
	// Detail is what is wrong with the input, e.g. `"x" is not a valid label key`.
	Detail string
	// DidYouMean is, for a name the inputs do not declare, the declared name most likely meant.
	DidYouMean string
	// Hint is what to do instead, e.g. "choose another name".
	Hint string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path.String())
	if e.Of != "" {
		b.WriteString(" (")
		b.WriteString(e.Of)
		b.WriteString(")")
	}
	b.WriteString(": ")
	b.WriteString(e.Detail)
	if e.DidYouMean != "" {
		b.WriteString(" (did you mean ")
		b.WriteString(e.DidYouMean)
		b.WriteString("?)")
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// WithHint sets what to do instead, and returns e.
func (e *Error) WithHint(hint string) *Error {
	e.Hint = hint
	return e
}

// Invalid is a problem with the input at p, detail saying what.
func Invalid(p *Path, detail string) *Error {
	return &Error{Path: p, Detail: detail}
}

// Invalidf is Invalid with the detail formatted as fmt.Sprintf does.
func Invalidf(p *Path, format string, a ...any) *Error {
	return &Error{Path: p, Detail: fmt.Sprintf(format, a...)}
}

// Required is an input that must be set and is not: "required", followed by why when why is
// not empty ("when there is more than one node class", "(the name of the EKS cluster)").
func Required(p *Path, why string) *Error {
	if why == "" {
		return Invalid(p, "required")
	}
	return Invalid(p, "required "+why)
}

// NotSupported is a value outside the allowed ones: `"x" is not one of a, b, c`.
func NotSupported(p *Path, value string, allowed []string) *Error {
	return Invalid(p, strconv.Quote(value)+" is not one of "+strings.Join(allowed, ", "))
}

// Unknown is a property the inputs do not declare, with the declared name most likely meant
// ("" when none is close).
func Unknown(p *Path, didYouMean string) *Error {
	return &Error{Path: p, Detail: "unknown property", DidYouMean: didYouMean}
}

// List is the problems of some inputs. It prints them one per line, as errors.Join does.
type List []error

func (l List) Error() string {
	lines := make([]string, len(l))
	for i, err := range l {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap is the problems, for errors.Is and errors.As.
func (l List) Unwrap() []error {
	return l
}

// Join is the problems among errs as one error, a List; nil when there is none. A nil error is
// no problem, and neither is a nil *Error; a List among errs adds its problems. It prints as
// errors.Join(errs...) prints.
func Join(errs ...error) error {
	var l List
	for _, err := range errs {
		switch e := err.(type) {
		case nil:
		case *Error:
			if e != nil {
				l = append(l, e)
			}
		case List:
			if inner := Join(e...); inner != nil {
				l = append(l, inner.(List)...)
			}
		default:
			l = append(l, err)
		}
	}
	if len(l) == 0 {
		return nil
	}
	return l
}
