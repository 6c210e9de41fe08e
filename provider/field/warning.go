package field

import "fmt"

// Warning is what a resource says about its inputs without refusing them: a valid input it almost
// certainly did not mean, or a check that could not run. It names its input as an Error does and
// prints as one, on one line. A warning about no single input (the cluster, the release, a list
// of inputs) has no Path and prints its Detail alone.
type Warning struct {
	Path *Path
	// Of says which input the path is when the program did not write it, as Error.Of does.
	Of     string
	Detail string
}

// Warnf is a warning about the input at p (nil: about no single input), the detail formatted as
// fmt.Sprintf does.
func Warnf(p *Path, format string, a ...any) Warning {
	return Warning{Path: p, Detail: fmt.Sprintf(format, a...)}
}

// String is the warning as said: `nodePools[0].requirements[1]: ...`, or the detail alone.
func (w Warning) String() string {
	if w.Path == nil {
		return w.Detail
	}
	return (&Error{Path: w.Path, Of: w.Of, Detail: w.Detail}).Error()
}
