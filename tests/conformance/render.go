package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"
)

// A render's output (`pulumi-resource-karpenter render --args FILE`) is declared in package
// format, which imports nothing but the standard library, like this package. The checks read
// the component's type, the children's types, names and inputs ("[secret]" masks a secret), and
// the invokes.

// Render is a render's component, children, outputs and invokes.
type Render = format.Rendered

// Resource is one child: its type token, logical name and inputs.
type Resource = format.Resource

// Invoke is one provider function the component called: the arguments as sent and the result
// fields it reads ("a|b": a, falling back to b where the provider does not answer a).
type Invoke = format.Invoke

// RunRender runs the provider binary's render command on an args file.
func RunRender(bin, argsFile string) (*Render, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "render", "--args", argsFile)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("render %s: %w: %s", argsFile, err, strings.TrimSpace(stderr.String()))
	}
	var r Render
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("render %s: %w", argsFile, err)
	}
	return &r, nil
}
