package provider

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"
)

// Renderer is `render` (package render) wired to this provider: it runs Provider under an
// in-process engine with mocks, constructing one of the package's components (the Karpenter
// component when the args name none). The plugin's `render` command uses it, and every
// package's tests through internal/rendertest.
func Renderer() render.Plugin {
	return render.Plugin{
		Name:       Name,
		Version:    Version,
		New:        Provider,
		Components: componentTokens(),
		Default:    componentToken,
	}
}
