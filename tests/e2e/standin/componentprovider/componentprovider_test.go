//go:build e2e

package componentprovider

// The version selection both component stand-ins share (the stand-ins' own tests check what each
// version changes in them):
//
//	cd tests && GOWORK=off go test -tags e2e ./e2e/standin/componentprovider/

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/emptypb"
)

type noArgs struct{}

func (noArgs) String() string { return "" }

// TestSelectVersion: $STANDIN_<NAME>_VERSION, else the plugin directory's version, else the
// default; any other version is refused, naming where it came from, and changes nothing.
func TestSelectVersion(t *testing.T) {
	const bin = "pulumi-resource-eks"
	for _, tc := range []struct {
		name, env, exe, want, err string
	}{
		{"run from where it was built: the default", "", "/work/main/bin/" + bin, "4.3.0", ""},
		{"no executable known: the default", "", "", "4.3.0", ""},
		{"installed as 3.9.1", "", "/root/.pulumi/plugins/resource-eks-v3.9.1/" + bin, "3.9.1", ""},
		{"installed as 4.3.0", "", "/root/.pulumi/plugins/resource-eks-v4.3.0/" + bin, "4.3.0", ""},
		{"another package's directory is not its version", "", "/root/.pulumi/plugins/resource-eksx-v3.9.1/" + bin, "4.3.0", ""},
		{"STANDIN_EKS_VERSION", "3.9.1", "/work/main/bin/" + bin, "3.9.1", ""},
		{"STANDIN_EKS_VERSION over the directory", "4.3.0", "/root/.pulumi/plugins/resource-eks-v3.9.1/" + bin, "4.3.0", ""},
		{"refused: a directory of another version", "", "/root/.pulumi/plugins/resource-eks-v3.9.0/" + bin, "",
			"installed as eks 3.9.0 (its plugin directory /root/.pulumi/plugins/resource-eks-v3.9.0): the stand-in for pulumi-eks answers only as 4.3.0 or 3.9.1"},
		{"refused: build metadata is another version", "", "/root/.pulumi/plugins/resource-eks-v3.9.1+x/" + bin, "",
			"installed as eks 3.9.1+x (its plugin directory"},
		{"refused: STANDIN_EKS_VERSION of another version", "5.0.0", "/root/.pulumi/plugins/resource-eks-v3.9.1/" + bin, "",
			"installed as eks 5.0.0 (STANDIN_EKS_VERSION): the stand-in for pulumi-eks answers only as 4.3.0 or 3.9.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("STANDIN_EKS_VERSION", tc.env)
			var used []string
			p := &Plugin[noArgs]{Name: "eks", Versions: []string{"4.3.0", "3.9.1"}, Use: func(v string) { used = append(used, v) }}
			err := p.SelectVersion(tc.exe)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				if used != nil || p.Version() != "4.3.0" {
					t.Errorf("a refused version is used: %v, Version %s", used, p.Version())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Version() != tc.want || len(used) != 1 || used[0] != tc.want {
				t.Errorf("Version %s, Use called with %v; want %s", p.Version(), used, tc.want)
			}
			if want := "stand-in for pulumi-eks " + tc.want + " (test only)"; p.StandIn() != want {
				t.Errorf("StandIn %q, want %q", p.StandIn(), want)
			}
			info, err := p.Server(nil).GetPluginInfo(context.Background(), &emptypb.Empty{})
			if err != nil || info.GetVersion() != tc.want+"+standin" {
				t.Errorf("GetPluginInfo = %v, %v", info, err)
			}
		})
	}
	p := &Plugin[noArgs]{Name: "awsx", Versions: []string{"3.9.0", "2.22.0"}}
	if err := p.SetVersion("3.8.0"); err == nil || err.Error() != "awsx 3.8.0: the stand-in for pulumi-awsx answers only as 3.9.0 or 2.22.0" {
		t.Errorf("SetVersion of another version: %v", err)
	}
	t.Setenv("STANDIN_AWSX_VERSION", "2.22.0")
	if err := p.SelectVersion(""); err != nil || p.Version() != "2.22.0" {
		t.Errorf("STANDIN_AWSX_VERSION (the package's name in upper case): %s, %v", p.Version(), err)
	}
}
