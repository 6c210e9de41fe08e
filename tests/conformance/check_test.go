package conformance

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakePackage writes a tiny @pulumi/aws in the generators' style: enough to check the checker
// without the published packages.
func fakePackage(t *testing.T, version string, files map[string]string) *Package {
	t.Helper()
	root := t.TempDir()
	files["package.json"] = `{"name": "@pulumi/aws", "version": "` + version + `"}`
	for rel, text := range files {
		p := filepath.Join(root, rel)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(text), 0o644))
	}
	pkg, err := OpenPackage("aws", version, root)
	must(t, err)
	return pkg
}

const fakeRole = `import * as pulumi from "@pulumi/pulumi";
import * as inputs from "../types/input";
export declare class Role extends pulumi.CustomResource {
    constructor(name: string, args: RoleArgs, opts?: pulumi.CustomResourceOptions);
}
export interface RoleArgs {
    assumeRolePolicy: pulumi.Input<string | inputs.iam.PolicyDocument>;
    description?: pulumi.Input<string | undefined>;
    maxSessionDuration?: pulumi.Input<number | undefined>;
    /**
     * @deprecated Use the aws.iam.RolePolicy resource instead.
     */
    inlinePolicies?: pulumi.Input<pulumi.Input<inputs.iam.RoleInlinePolicy>[] | undefined>;
    name?: pulumi.Input<string | undefined>;
    tags?: pulumi.Input<{
        [key: string]: pulumi.Input<string>;
    } | undefined>;
}
`

const fakeInputs = `import * as pulumi from "@pulumi/pulumi";
import * as inputs from "../types/input";
export declare namespace iam {
    interface PolicyDocument {
        Version: pulumi.Input<"2008-10-17" | "2012-10-17">;
        Statement: pulumi.Input<pulumi.Input<inputs.iam.PolicyStatement>[]>;
    }
    interface PolicyStatement {
        Effect: pulumi.Input<"Allow" | "Deny">;
        Action?: pulumi.Input<string | pulumi.Input<string>[]>;
    }
    interface RoleInlinePolicy {
        name?: pulumi.Input<string>;
        policy?: pulumi.Input<string>;
    }
}
`

func fakeGetRegion(v7 bool) string {
	result := `    readonly name: string;
`
	if v7 {
		result = `    /**
     * @deprecated name is deprecated. Use region instead.
     */
    readonly name: string;
    readonly region: string;
`
	}
	return `import * as pulumi from "@pulumi/pulumi";
export declare function getRegion(args?: GetRegionArgs, opts?: pulumi.InvokeOptions): Promise<GetRegionResult>;
export interface GetRegionArgs {
    endpoint?: string;
    name?: string;
}
export interface GetRegionResult {
    readonly endpoint: string;
    readonly id: string;
` + result + `}
`
}

func fakeAWS(t *testing.T, version string) *Package {
	return fakePackage(t, version, map[string]string{
		"iam/role.d.ts":    fakeRole,
		"types/input.d.ts": fakeInputs,
		"getRegion.d.ts":   fakeGetRegion(strings.HasPrefix(version, "7.")),
		"iam/index.d.ts":   `export { RoleArgs } from "./role";` + "\n" + `export type Role = import("./role").Role;` + "\n",
		"index.d.ts":       `export * from "./arn";` + "\n",
		"arn.d.ts":         `export type ARN = string;` + "\n",
		"iam/rolePolicyAttachment.d.ts": `import * as pulumi from "@pulumi/pulumi";
import { ARN } from "..";
import { Role } from "./index";
export declare class RolePolicyAttachment extends pulumi.CustomResource {
}
export interface RolePolicyAttachmentArgs {
    policyArn: pulumi.Input<ARN>;
    role: pulumi.Input<string | Role>;
}
`,
	})
}

func messages(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		s := f.String()
		if f.Deprecated {
			s = "deprecated: " + s
		}
		out = append(out, s)
	}
	return out
}

func wantMessages(t *testing.T, got []Finding, want ...string) {
	t.Helper()
	g := messages(got)
	if !slices.Equal(g, want) {
		t.Errorf("findings:\n  got  %q\n  want %q", g, want)
	}
}

// The checker's reason to exist: a misspelt input key, which only real AWS would reject.
func TestCheckerNamesMisspeltKey(t *testing.T) {
	pkg := fakeAWS(t, "7.48.0")
	res := Resource{Type: "aws:iam/role:Role", Name: "platform-node", Inputs: map[string]any{
		"assumeRolePolcy": `{"Version":"2012-10-17","Statement":[]}`,
		"name":            "platform-node-d6997d4",
	}}
	wantMessages(t, CheckResource(pkg, res),
		`aws 7.48.0: aws:iam/role:Role platform-node: input "assumeRolePolcy" is not in RoleArgs`,
		`aws 7.48.0: aws:iam/role:Role platform-node: required input "assumeRolePolicy" of RoleArgs is missing`,
	)
}

func TestCheckerValueShapes(t *testing.T) {
	pkg := fakeAWS(t, "6.83.2")
	res := Resource{Type: "aws:iam/role:Role", Name: "r", Inputs: map[string]any{
		"assumeRolePolicy": map[string]any{ // the object branch of string | PolicyDocument
			"Version":   "2012-10-18",
			"Statement": []any{map[string]any{"Effect": "Allow", "Action": []any{"s3:Get", 3.0}, "Resource": "*"}},
		},
		"maxSessionDuration": "3600",
		"tags":               map[string]any{"team": "platform", "cost": 1234.0},
		"description":        "[secret]", // masked: its shape is not visible, its key is still checked
	}}
	wantMessages(t, CheckResource(pkg, res),
		`aws 6.83.2: aws:iam/role:Role r: input "assumeRolePolicy.Statement[0].Action[1]" is a number (3), want pulumi.Input<string>`,
		`aws 6.83.2: aws:iam/role:Role r: input "assumeRolePolicy.Statement[0].Resource" is not in PolicyStatement`,
		`aws 6.83.2: aws:iam/role:Role r: input "assumeRolePolicy.Version" is a string ("2012-10-18"), want one of "2008-10-17", "2012-10-17"`,
		`aws 6.83.2: aws:iam/role:Role r: input "maxSessionDuration" is a string ("3600"), want pulumi.Input<number | undefined>`,
		`aws 6.83.2: aws:iam/role:Role r: input "tags[cost]" is a number (1234), want pulumi.Input<string>`,
	)
	ok := Resource{Type: "aws:iam/role:Role", Name: "r", Inputs: map[string]any{
		"assumeRolePolicy": `{}`, "maxSessionDuration": 3600.0, "tags": map[string]any{"team": "platform"},
	}}
	wantMessages(t, CheckResource(pkg, ok))
}

func TestCheckerDeprecatedInput(t *testing.T) {
	pkg := fakeAWS(t, "7.48.0")
	res := Resource{Type: "aws:iam/role:Role", Name: "r", Inputs: map[string]any{
		"assumeRolePolicy": `{}`,
		"inlinePolicies":   []any{map[string]any{"name": "x", "policy": "{}"}},
	}}
	got := CheckResource(pkg, res)
	wantMessages(t, got, `deprecated: aws 7.48.0: aws:iam/role:Role r: input "inlinePolicies" is deprecated in RoleArgs: Use the aws.iam.RolePolicy resource instead.`)
	if got[0].Key != "aws:iam/role:Role input inlinePolicies" {
		t.Errorf("allow-list key: %q", got[0].Key)
	}
}

// Types reached through imports and re-exports: ARN from the package index (export * from
// "./arn"), Role from iam/index.d.ts (a type alias of import("./role").Role).
func TestCheckerResolvesThroughReExports(t *testing.T) {
	pkg := fakeAWS(t, "6.83.2")
	res := Resource{Type: "aws:iam/rolePolicyAttachment:RolePolicyAttachment", Name: "a", Inputs: map[string]any{
		"policyArn": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy", "role": "node",
	}}
	wantMessages(t, CheckResource(pkg, res))
	res.Inputs = map[string]any{"policyArn": 12.0, "role": map[string]any{"name": "node"}}
	wantMessages(t, CheckResource(pkg, res),
		`aws 6.83.2: aws:iam/rolePolicyAttachment:RolePolicyAttachment a: input "policyArn" is a number (12), want pulumi.Input<ARN>`,
		`aws 6.83.2: aws:iam/rolePolicyAttachment:RolePolicyAttachment a: input "role" is an object, want pulumi.Input<string | Role>`)
}

func TestCheckerUnknownType(t *testing.T) {
	pkg := fakeAWS(t, "7.48.0")
	wantMessages(t, CheckResource(pkg, Resource{Type: "aws:iam/rol:Role", Name: "r"}),
		`aws 7.48.0: aws:iam/rol:Role r: type aws:iam/rol:Role is not in the package (no iam/rol.d.ts)`)
}

// getRegion answers `name` in pulumi-aws v6 and `region` (with `name` deprecated) in v7: a
// read of region falling back to name conforms to both; either alone does not.
func TestCheckerFallbackReads(t *testing.T) {
	v6, v7 := fakeAWS(t, "6.83.2"), fakeAWS(t, "7.48.0")
	inv := func(reads ...string) Invoke {
		return Invoke{Token: "aws:index/getRegion:getRegion", Args: map[string]any{}, Reads: reads}
	}
	wantMessages(t, CheckInvoke(v6, inv("region|name")))
	wantMessages(t, CheckInvoke(v7, inv("region|name")))
	wantMessages(t, CheckInvoke(v6, inv("region")),
		`aws 6.83.2: aws:index/getRegion:getRegion (invoke): result field "region" is not in GetRegionResult`)
	wantMessages(t, CheckInvoke(v7, inv("name")),
		`deprecated: aws 7.48.0: aws:index/getRegion:getRegion (invoke): result field "name" is deprecated in GetRegionResult: name is deprecated. Use region instead.`)
	wantMessages(t, CheckInvoke(v6, inv("regoin|nmae")),
		`aws 6.83.2: aws:index/getRegion:getRegion (invoke): result field "regoin|nmae": none of regoin, nmae is in GetRegionResult`)
	bad := Invoke{Token: "aws:index/getRegion:getRegion", Args: map[string]any{"nme": "us-west-2"}, Reads: []string{"id"}}
	wantMessages(t, CheckInvoke(v6, bad),
		`aws 6.83.2: aws:index/getRegion:getRegion (invoke): argument "nme" is not in GetRegionArgs`)
}

// The same checks against the published declarations (make conformance-deps): what the test
// relies on about them holds.
func TestCheckerAgainstPublishedDeclarations(t *testing.T) {
	pkgs, err := OpenAll()
	must(t, err)
	for _, pkg := range pkgs {
		switch pkg.Provider {
		case "aws":
			role := Resource{Type: "aws:iam/role:Role", Name: "platform-node", Inputs: map[string]any{
				"assumeRolePolcy": "{}", "name": "n", "tags": map[string]any{"team": "platform"},
			}}
			wantMessages(t, CheckResource(pkg, role),
				pkg.String()+`: aws:iam/role:Role platform-node: input "assumeRolePolcy" is not in RoleArgs`,
				pkg.String()+`: aws:iam/role:Role platform-node: required input "assumeRolePolicy" of RoleArgs is missing`)
			region := Invoke{Token: "aws:index/getRegion:getRegion", Args: map[string]any{}, Reads: []string{"region|name"}}
			wantMessages(t, CheckInvoke(pkg, region))
			region.Reads = []string{"region"}
			if pkg.Version == "6.83.2" {
				wantMessages(t, CheckInvoke(pkg, region),
					`aws 6.83.2: aws:index/getRegion:getRegion (invoke): result field "region" is not in GetRegionResult`)
			} else {
				wantMessages(t, CheckInvoke(pkg, region))
			}
			// A key v6 has and v7 removed.
			addon := Resource{Type: "aws:eks/addon:Addon", Name: "a", Inputs: map[string]any{
				"clusterName": "c", "addonName": "eks-pod-identity-agent", "resolveConflicts": "OVERWRITE",
			}}
			got := CheckResource(pkg, addon)
			if len(got) != 1 || (pkg.Version == "7.48.0") == got[0].Deprecated {
				t.Errorf("%s: Addon resolveConflicts: %q", pkg, messages(got))
			}
		case "kubernetes":
			release := Resource{Type: "kubernetes:helm.sh/v3:Release", Name: "karpenter-release", Inputs: map[string]any{
				"chart": "karpenter", "compat": "true", "repositoryOpts": map[string]any{"repo": "https://x", "usernme": "robot", "password": "[secret]"},
			}}
			wantMessages(t, CheckResource(pkg, release),
				pkg.String()+`: kubernetes:helm.sh/v3:Release karpenter-release: input "repositoryOpts.usernme" is not in RepositoryOpts`)
			pool := Resource{Type: "kubernetes:karpenter.sh/v1:NodePool", Name: "np", Inputs: map[string]any{
				"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": "x", "lables": map[string]any{}},
				"spec": map[string]any{"anything": 1.0},
			}}
			wantMessages(t, CheckResource(pkg, pool),
				pkg.String()+`: kubernetes:karpenter.sh/v1:NodePool np: input "metadata.lables" is not in ObjectMeta`)
		}
	}
}
