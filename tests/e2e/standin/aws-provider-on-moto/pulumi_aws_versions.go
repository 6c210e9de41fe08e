package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// The pulumi-aws versions the stand-in answers as. 6.83.2 is the version the component registers
// its children at (provider/children/resources.go). 7.48.0 is the version the README's programs ask
// for (@pulumi/aws and pulumi-aws 7.48.0, which pulumi-eks 4 requires): tests/e2e's snippet worlds
// install the same binary under both versions, and the program's explicit v7 provider then serves
// the component's children too. What 7.48.0 changes here (terraform-provider-aws v6's Enhanced
// Region Support):
//   - getRegion answers `region` (v7's name of the region; `name` stays, deprecated) and takes a
//     `region` argument;
//   - every regional resource (all but IAM's, which is global) takes a `region` input,
//     Optional+Computed: unset, it is the provider's region (the `defaultRegion` CustomizeDiff),
//     and read sets it (`setRegionInState`); a change other than unset <-> the provider's region
//     replaces the resource (`forceNewIfRegionChanges`). Source: terraform-provider-aws
//     internal/provider/sdkv2's region interceptors and docs/enhanced-region-support.md (stored
//     copies in the search tool's code corpus). The stand-in serves only its provider's region:
//     another value fails Check, naming it.
//
// 6.83.0 is the version com.pulumi:aws 6.83.0 asks for (its jar's com/pulumi/aws/plugin.json),
// the Java SDK of pulumi-aws examples/java is built with: a v6 patch release, which the stand-in
// answers as with exactly 6.83.2's behaviour (the same terraform-provider-aws v5 schema of the
// types it serves), naming itself 6.83.0.
const (
	awsV6     = "6.83.2"
	awsV6Java = "6.83.0"
	awsV7     = "7.48.0"
)

// pluginDirVersion: `pulumi plugin install resource aws <version> --file ...` puts the binary in
// $PULUMI_HOME/plugins/resource-aws-v<version>/, where the engine runs it.
var pluginDirVersion = regexp.MustCompile(`^resource-aws-v(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)$`)

// selectVersion picks the version to answer as: STANDIN_AWS_VERSION if set, else the version of
// the plugin directory the binary runs from, else 6.83.2 (a binary run from where it was built).
// A version the stand-in cannot answer as is refused, so it never pretends to be one.
func selectVersion() error {
	v, from := os.Getenv("STANDIN_AWS_VERSION"), "STANDIN_AWS_VERSION"
	if v == "" {
		if exe, err := os.Executable(); err == nil {
			if m := pluginDirVersion.FindStringSubmatch(filepath.Base(filepath.Dir(exe))); m != nil {
				v, from = m[1], "its plugin directory "+filepath.Dir(exe)
			}
		}
	}
	switch v {
	case "", awsV6:
		setVersion(awsV6)
	case awsV6Java, awsV7:
		setVersion(v)
	default:
		return fmt.Errorf("installed as aws %s (%s): the pulumi-aws stand-in answers only as %s, %s or %s", v, from, awsV6, awsV6Java, awsV7)
	}
	return nil
}

// setVersion makes the stand-in answer as pulumi-aws v (awsV6, awsV6Java or awsV7).
func setVersion(v string) {
	awsVersion = v
	standIn = "stand-in for pulumi-aws " + v + " (test only)"
	pluginInfoVersion = v + "+standin"
	for _, t := range types {
		if regional(t) {
			if v == awsV7 {
				t.inputs["region"] = prop{kind: kString, computed: true, forceNew: true}
			} else {
				delete(t.inputs, "region")
			}
		}
	}
}

func v7() bool { return awsVersion == awsV7 }

// regional: a resource of a regional service (IAM is global: no `region` in v7).
func regional(t *rtype) bool { return !strings.HasPrefix(t.token, "aws:iam/") }

// checkRegion refuses a `region` input other than the provider's (v7 only; v6 has no such input).
func checkRegion(t *rtype, in pmap, providerRegion string) []*pulumirpc.CheckFailure {
	if !v7() || !regional(t) || !has(in, "region") || unknown(in["region"]) || providerRegion == "" {
		return nil
	}
	if r := str(in, "region"); r != providerRegion {
		return []*pulumirpc.CheckFailure{failure("region", "%s region %q: the %s serves only its provider's region, %s (moto's)",
			t.token, r, standIn, providerRegion)}
	}
	return nil
}

// withRegion sets the computed `region` output of a regional resource (v7): the input, else the
// provider's region.
func withRegion(t *rtype, in, outs pmap, providerRegion string) {
	if !v7() || !regional(t) || outs == nil {
		return
	}
	r := providerRegion
	if has(in, "region") {
		r = str(in, "region")
	}
	outs["region"] = resource.NewStringProperty(r)
}

// v7Functions adjusts the function schemas to pulumi-aws 7.48.0's (getRegion's `region`).
func v7Functions(functions map[string]any) {
	if !v7() {
		return
	}
	f := functions["aws:index/getRegion:getRegion"].(map[string]any)
	for _, side := range []string{"inputs", "outputs"} {
		props := f[side].(map[string]any)["properties"].(map[string]any)
		props["region"] = map[string]any{"type": "string"}
	}
}
