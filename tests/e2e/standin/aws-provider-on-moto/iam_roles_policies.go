package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// IAM: roles, managed policies, role policy attachments, instance profiles and service-linked
// roles, all real calls to moto's IAM. What each call does follows terraform-provider-aws's
// resource of the same name (the files cited in resource_types.go), with one deliberate difference,
// written where it is: deleting a role never detaches anything implicitly.

func iamTags(m map[string]string) []iamtypes.Tag {
	var out []iamtypes.Tag
	for _, k := range sortedKeys(m) {
		out = append(out, iamtypes.Tag{Key: aws.String(k), Value: aws.String(m[k])})
	}
	return out
}

func fromIAMTags(tags []iamtypes.Tag) map[string]string {
	out := map[string]string{}
	for _, t := range tags {
		out[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return out
}

// decodeDocument decodes a policy document as IAM returns it (URL-encoded JSON).
func decodeDocument(doc *string) string {
	s := aws.ToString(doc)
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

func rfc3339(t *time.Time) resource.PropertyValue {
	if t == nil {
		return sv("")
	}
	return sv(t.UTC().Format(time.RFC3339))
}

// physicalName is terraform's create.Name: the name, else the prefix plus a unique suffix, else
// "terraform-" plus one (only when the engine's autonaming is disabled and no name was given).
func physicalName(in pmap) string {
	if n := str(in, "name"); n != "" {
		return n
	}
	if p := str(in, "namePrefix"); p != "" {
		return prefixedUniqueID(p)
	}
	return prefixedUniqueID("terraform-")
}

var iamNameRE = regexp.MustCompile(`^[\w+=,.@-]*$`)

// checkIAMName is terraform's validResourceName(max) on name and name_prefix.
func checkIAMName(in pmap, max int) []*pulumirpc.CheckFailure {
	var out []*pulumirpc.CheckFailure
	for _, k := range []string{"name", "namePrefix"} {
		v := str(in, k)
		limit := max
		if k == "namePrefix" {
			limit = max - uniqueIDSuffixLength
		}
		if len(v) > limit {
			out = append(out, failure(k, "%q must be at most %d characters, got %d", k, limit, len(v)))
		}
		if !iamNameRE.MatchString(v) {
			out = append(out, failure(k, "%q must match [\\w+=,.@-]: %q", k, v))
		}
	}
	return out
}

func checkJSON(in pmap, k string) []*pulumirpc.CheckFailure {
	if !has(in, k) || unknown(in[resource.PropertyKey(k)]) {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(str(in, k)), &v); err != nil {
		return []*pulumirpc.CheckFailure{failure(k, "%q contains an invalid JSON: %v", k, err)}
	}
	return nil
}

// ---- aws:iam/role:Role --------------------------------------------------------------------

var roleOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		out := append(checkIAMName(in, 64), checkJSON(in, "assumeRolePolicy")...)
		if v, ok := integer(in, "maxSessionDuration"); ok && (v < 3600 || v > 43200) {
			out = append(out, failure("maxSessionDuration", "expected maxSessionDuration to be in the range (3600 - 43200), got %d", v))
		}
		if len(str(in, "description")) > 1000 {
			out = append(out, failure("description", "expected length of description to be in the range (0 - 1000)"))
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		cl := c.aws().iam
		name := physicalName(in)
		input := &iam.CreateRoleInput{
			RoleName:                 aws.String(name),
			AssumeRolePolicyDocument: aws.String(str(in, "assumeRolePolicy")),
			Path:                     aws.String(strOr(in, "path", "/")),
			Tags:                     iamTags(stringMap(in, "tags")),
		}
		if has(in, "description") {
			input.Description = aws.String(str(in, "description"))
		}
		if v, ok := integer(in, "maxSessionDuration"); ok {
			input.MaxSessionDuration = aws.Int32(int32(v))
		}
		if has(in, "permissionsBoundary") {
			input.PermissionsBoundary = aws.String(str(in, "permissionsBoundary"))
		}
		if _, err := cl.CreateRole(ctx, input); err != nil {
			return "", fmt.Errorf("creating IAM Role (%s): %w", name, err)
		}
		for _, p := range objectList(in, "inlinePolicies") {
			if _, err := cl.PutRolePolicy(ctx, &iam.PutRolePolicyInput{
				RoleName: aws.String(name), PolicyName: aws.String(str(p, "name")), PolicyDocument: aws.String(str(p, "policy")),
			}); err != nil {
				return name, fmt.Errorf("creating inline policy (%s): %w", str(p, "name"), err)
			}
		}
		for _, a := range stringList(in, "managedPolicyArns") {
			if _, err := cl.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(name), PolicyArn: aws.String(a)}); err != nil {
				return name, fmt.Errorf("attaching managed policy (%s): %w", a, err)
			}
		}
		return name, nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		cl := c.aws().iam
		out, err := cl.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(id)})
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading IAM Role (%s): %w", id, err)
		}
		r := out.Role
		inline, err := roleInlinePolicies(ctx, cl, id)
		if err != nil {
			return nil, err
		}
		managed, err := roleAttachedPolicies(ctx, cl, id)
		if err != nil {
			return nil, err
		}
		tags := fromIAMTags(r.Tags)
		outs := pmap{
			"arn":                 sv(aws.ToString(r.Arn)),
			"assumeRolePolicy":    sv(keepIfEquivalent(str(in, "assumeRolePolicy"), decodeDocument(r.AssumeRolePolicyDocument))),
			"createDate":          rfc3339(r.CreateDate),
			"description":         sv(aws.ToString(r.Description)),
			"forceDetachPolicies": bv(boolOr(in, "forceDetachPolicies", false)),
			"inlinePolicies":      resource.NewArrayProperty(inline),
			"managedPolicyArns":   listValue(managed),
			"maxSessionDuration":  nv(int(aws.ToInt32(r.MaxSessionDuration))),
			"name":                sv(aws.ToString(r.RoleName)),
			"namePrefix":          sv(namePrefixFromName(aws.ToString(r.RoleName))),
			"path":                sv(aws.ToString(r.Path)),
			"tags":                mapValue(tags),
			"tagsAll":             mapValue(tags),
			"uniqueId":            sv(aws.ToString(r.RoleId)),
		}
		if r.PermissionsBoundary != nil {
			outs["permissionsBoundary"] = sv(aws.ToString(r.PermissionsBoundary.PermissionsBoundaryArn))
		}
		return outs, nil
	},
	update: func(ctx context.Context, c *call, id string, state, oldIn, newIn pmap) error {
		cl := c.aws().iam
		if !jsonEquivalent(str(state, "assumeRolePolicy"), str(newIn, "assumeRolePolicy")) {
			if _, err := cl.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{
				RoleName: aws.String(id), PolicyDocument: aws.String(str(newIn, "assumeRolePolicy")),
			}); err != nil {
				return fmt.Errorf("updating IAM Role (%s) assume role policy: %w", id, err)
			}
		}
		if str(oldIn, "description") != str(newIn, "description") {
			if _, err := cl.UpdateRoleDescription(ctx, &iam.UpdateRoleDescriptionInput{
				RoleName: aws.String(id), Description: aws.String(str(newIn, "description")),
			}); err != nil {
				return fmt.Errorf("updating IAM Role (%s) description: %w", id, err)
			}
		}
		if o, n := intOr(oldIn, "maxSessionDuration", 3600), intOr(newIn, "maxSessionDuration", 3600); o != n {
			if _, err := cl.UpdateRole(ctx, &iam.UpdateRoleInput{RoleName: aws.String(id), MaxSessionDuration: aws.Int32(int32(n))}); err != nil {
				return fmt.Errorf("updating IAM Role (%s) MaxSessionDuration: %w", id, err)
			}
		}
		if o, n := str(oldIn, "permissionsBoundary"), str(newIn, "permissionsBoundary"); o != n {
			var err error
			if n != "" {
				_, err = cl.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{RoleName: aws.String(id), PermissionsBoundary: aws.String(n)})
			} else {
				_, err = cl.DeleteRolePermissionsBoundary(ctx, &iam.DeleteRolePermissionsBoundaryInput{RoleName: aws.String(id)})
			}
			if err != nil {
				return fmt.Errorf("updating IAM Role (%s) permissions boundary: %w", id, err)
			}
		}
		if has(newIn, "inlinePolicies") || has(oldIn, "inlinePolicies") {
			olds := map[string]string{}
			for _, p := range objectList(oldIn, "inlinePolicies") {
				olds[str(p, "name")] = str(p, "policy")
			}
			news := map[string]string{}
			for _, p := range objectList(newIn, "inlinePolicies") {
				news[str(p, "name")] = str(p, "policy")
			}
			remove, set := tagDiff(olds, news)
			for _, n := range remove {
				if _, err := cl.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(id), PolicyName: aws.String(n)}); err != nil && !isNotFound(err) {
					return fmt.Errorf("deleting inline policy (%s): %w", n, err)
				}
			}
			for _, n := range sortedKeys(set) {
				if _, err := cl.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(id), PolicyName: aws.String(n), PolicyDocument: aws.String(set[n])}); err != nil {
					return fmt.Errorf("creating inline policy (%s): %w", n, err)
				}
			}
		}
		if has(newIn, "managedPolicyArns") || has(oldIn, "managedPolicyArns") {
			olds, news := setOf(stringList(oldIn, "managedPolicyArns")), setOf(stringList(newIn, "managedPolicyArns"))
			remove, add := tagDiff(olds, news)
			for _, a := range remove {
				if _, err := cl.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String(id), PolicyArn: aws.String(a)}); err != nil && !isNotFound(err) {
					return fmt.Errorf("detaching managed policy (%s): %w", a, err)
				}
			}
			for _, a := range sortedKeys(add) {
				if _, err := cl.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(id), PolicyArn: aws.String(a)}); err != nil {
					return fmt.Errorf("attaching managed policy (%s): %w", a, err)
				}
			}
		}
		return updateIAMTags(ctx, stringMap(oldIn, "tags"), stringMap(newIn, "tags"),
			func(keys []string) error {
				_, err := cl.UntagRole(ctx, &iam.UntagRoleInput{RoleName: aws.String(id), TagKeys: keys})
				return err
			},
			func(tags []iamtypes.Tag) error {
				_, err := cl.TagRole(ctx, &iam.TagRoleInput{RoleName: aws.String(id), Tags: tags})
				return err
			})
	},
	// terraform's DeleteRole also removes the role from every instance profile and, with
	// force_detach_policies (or managed_policy_arns/inline_policy set), detaches its policies
	// first, then retries DeleteConflict for two minutes. The stand-in does only what the
	// resource's own inputs ask (forceDetachPolicies, managedPolicyArns, inlinePolicies) and calls
	// DeleteRole once: moto answers DeleteConflict for a role that still has attached policies or
	// sits in an instance profile, and that error is returned as it is, so a destroy that deletes
	// a role before its attachments or its instance profile fails instead of being papered over.
	delete: func(ctx context.Context, c *call, id string, state pmap) error {
		cl := c.aws().iam
		force, _ := boolean(state, "forceDetachPolicies")
		if force || len(stringList(state, "managedPolicyArns")) > 0 && has(c.inputs, "managedPolicyArns") {
			attached, err := roleAttachedPolicies(ctx, cl, id)
			if err != nil {
				return err
			}
			for _, a := range attached {
				if _, err := cl.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String(id), PolicyArn: aws.String(a)}); err != nil && !isNotFound(err) {
					return fmt.Errorf("unable to detach policies: %w", err)
				}
			}
		}
		if force || has(c.inputs, "inlinePolicies") {
			names, err := cl.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String(id)})
			if err != nil && !isNotFound(err) {
				return err
			}
			if names != nil {
				for _, n := range names.PolicyNames {
					if _, err := cl.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(id), PolicyName: aws.String(n)}); err != nil && !isNotFound(err) {
						return fmt.Errorf("unable to delete inline policies: %w", err)
					}
				}
			}
		}
		_, err := cl.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(id)})
		if isNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("deleting IAM Role (%s): %w", id, err)
		}
		return nil
	},
}

func roleAttachedPolicies(ctx context.Context, cl *iam.Client, role string) ([]string, error) {
	var arns []string
	pages := iam.NewListAttachedRolePoliciesPaginator(cl, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(role)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading managed policies of IAM Role (%s): %w", role, err)
		}
		for _, p := range page.AttachedPolicies {
			arns = append(arns, aws.ToString(p.PolicyArn))
		}
	}
	return arns, nil
}

func roleInlinePolicies(ctx context.Context, cl *iam.Client, role string) ([]resource.PropertyValue, error) {
	names, err := cl.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String(role)})
	if err != nil {
		return nil, fmt.Errorf("reading inline policies of IAM Role (%s): %w", role, err)
	}
	out := []resource.PropertyValue{}
	for _, n := range names.PolicyNames {
		p, err := cl.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(n)})
		if err != nil {
			return nil, err
		}
		out = append(out, resource.NewObjectProperty(pmap{"name": sv(n), "policy": sv(decodeDocument(p.PolicyDocument))}))
	}
	return out, nil
}

func updateIAMTags(ctx context.Context, olds, news map[string]string, untag func([]string) error, tag func([]iamtypes.Tag) error) error {
	remove, set := tagDiff(olds, news)
	if len(remove) > 0 {
		if err := untag(remove); err != nil {
			return fmt.Errorf("untagging: %w", err)
		}
	}
	if len(set) > 0 {
		if err := tag(iamTags(set)); err != nil {
			return fmt.Errorf("tagging: %w", err)
		}
	}
	return nil
}

func setOf(items []string) map[string]string {
	out := map[string]string{}
	for _, s := range items {
		out[s] = s
	}
	return out
}

// ---- aws:iam/policy:Policy ----------------------------------------------------------------

var policyOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		return append(checkIAMName(in, 128), checkJSON(in, "policy")...)
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		name := physicalName(in)
		out, err := c.aws().iam.CreatePolicy(ctx, &iam.CreatePolicyInput{
			PolicyName:     aws.String(name),
			Description:    aws.String(str(in, "description")),
			Path:           aws.String(strOr(in, "path", "/")),
			PolicyDocument: aws.String(str(in, "policy")),
			Tags:           iamTags(stringMap(in, "tags")),
		})
		if err != nil {
			return "", fmt.Errorf("creating IAM Policy (%s): %w", name, err)
		}
		return aws.ToString(out.Policy.Arn), nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		cl := c.aws().iam
		out, err := cl.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(id)})
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading IAM Policy (%s): %w", id, err)
		}
		p := out.Policy
		v, err := cl.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(id), VersionId: p.DefaultVersionId})
		if err != nil {
			return nil, fmt.Errorf("reading IAM Policy (%s) document: %w", id, err)
		}
		tags := fromIAMTags(p.Tags)
		return pmap{
			"arn":             sv(aws.ToString(p.Arn)),
			"attachmentCount": nv(int(aws.ToInt32(p.AttachmentCount))),
			"description":     sv(aws.ToString(p.Description)),
			"name":            sv(aws.ToString(p.PolicyName)),
			"namePrefix":      sv(namePrefixFromName(aws.ToString(p.PolicyName))),
			"path":            sv(aws.ToString(p.Path)),
			"policy":          sv(keepIfEquivalent(str(in, "policy"), decodeDocument(v.PolicyVersion.Document))),
			"policyId":        sv(aws.ToString(p.PolicyId)),
			"tags":            mapValue(tags),
			"tagsAll":         mapValue(tags),
		}, nil
	},
	// terraform's resourcePolicyUpdate: prune the oldest non-default version when five exist
	// (IAM's limit), create the new version, then make it the default (terraform sleeps 5 s in
	// between for IAM's eventual consistency; moto needs no wait).
	update: func(ctx context.Context, c *call, id string, state, oldIn, newIn pmap) error {
		cl := c.aws().iam
		if !jsonEquivalent(str(state, "policy"), str(newIn, "policy")) {
			versions, err := policyVersions(ctx, cl, id)
			if err != nil {
				return err
			}
			if len(versions) >= 5 {
				var oldest *iamtypes.PolicyVersion
				for i := range versions {
					v := &versions[i]
					if v.IsDefaultVersion {
						continue
					}
					if oldest == nil || aws.ToTime(v.CreateDate).Before(aws.ToTime(oldest.CreateDate)) {
						oldest = v
					}
				}
				if oldest != nil {
					if _, err := cl.DeletePolicyVersion(ctx, &iam.DeletePolicyVersionInput{PolicyArn: aws.String(id), VersionId: oldest.VersionId}); err != nil {
						return fmt.Errorf("deleting IAM Policy (%s) version (%s): %w", id, aws.ToString(oldest.VersionId), err)
					}
				}
			}
			v, err := cl.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{
				PolicyArn: aws.String(id), PolicyDocument: aws.String(str(newIn, "policy")), SetAsDefault: false,
			})
			if err != nil {
				return fmt.Errorf("creating IAM Policy (%s) version: %w", id, err)
			}
			if _, err := cl.SetDefaultPolicyVersion(ctx, &iam.SetDefaultPolicyVersionInput{PolicyArn: aws.String(id), VersionId: v.PolicyVersion.VersionId}); err != nil {
				return fmt.Errorf("setting Default Policy version for IAM Policy (%s): %w", id, err)
			}
		}
		return updateIAMTags(ctx, stringMap(oldIn, "tags"), stringMap(newIn, "tags"),
			func(keys []string) error {
				_, err := cl.UntagPolicy(ctx, &iam.UntagPolicyInput{PolicyArn: aws.String(id), TagKeys: keys})
				return err
			},
			func(tags []iamtypes.Tag) error {
				_, err := cl.TagPolicy(ctx, &iam.TagPolicyInput{PolicyArn: aws.String(id), Tags: tags})
				return err
			})
	},
	// terraform deletes the non-default versions, then the policy. IAM refuses to delete a
	// policy that is still attached (DeleteConflict); moto 5.2.5 does not check that and deletes
	// it, so the stand-in enforces it from the policy's AttachmentCount.
	delete: func(ctx context.Context, c *call, id string, _ pmap) error {
		cl := c.aws().iam
		p, err := cl.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(id)})
		if isNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading IAM Policy (%s): %w", id, err)
		}
		if n := aws.ToInt32(p.Policy.AttachmentCount); n > 0 {
			return fmt.Errorf("deleting IAM Policy (%s): api error DeleteConflict: Cannot delete a policy attached to entities "+
				"(%d attachments; enforced by the %s: moto does not refuse it)", id, n, standIn)
		}
		versions, err := policyVersions(ctx, cl, id)
		if err != nil {
			return err
		}
		for _, v := range versions {
			if v.IsDefaultVersion {
				continue
			}
			if _, err := cl.DeletePolicyVersion(ctx, &iam.DeletePolicyVersionInput{PolicyArn: aws.String(id), VersionId: v.VersionId}); err != nil {
				return fmt.Errorf("deleting IAM Policy (%s) version (%s): %w", id, aws.ToString(v.VersionId), err)
			}
		}
		if _, err := cl.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: aws.String(id)}); err != nil && !isNotFound(err) {
			return fmt.Errorf("deleting IAM Policy (%s): %w", id, err)
		}
		return nil
	},
}

func policyVersions(ctx context.Context, cl *iam.Client, policyArn string) ([]iamtypes.PolicyVersion, error) {
	var out []iamtypes.PolicyVersion
	pages := iam.NewListPolicyVersionsPaginator(cl, &iam.ListPolicyVersionsInput{PolicyArn: aws.String(policyArn)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading IAM Policy (%s) versions: %w", policyArn, err)
		}
		out = append(out, page.Versions...)
	}
	return out, nil
}

// ---- aws:iam/rolePolicyAttachment:RolePolicyAttachment ------------------------------------

var attachmentOps = ops{
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		role, policy := str(in, "role"), str(in, "policyArn")
		if _, err := c.aws().iam.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(role), PolicyArn: aws.String(policy)}); err != nil {
			return "", fmt.Errorf("attaching policy %s to IAM Role %s: %w", policy, role, err)
		}
		// terraform's id for this resource: resource.PrefixedUniqueId("<role>-").
		return prefixedUniqueID(role + "-"), nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		role, policy := str(in, "role"), str(in, "policyArn")
		attached, err := roleAttachedPolicies(ctx, c.aws().iam, role)
		if isNotFound(err) {
			return nil, nil // the role is gone, and the attachment with it
		}
		if err != nil {
			return nil, err
		}
		for _, a := range attached {
			if a == policy {
				return pmap{"id": sv(id), "policyArn": sv(policy), "role": sv(role)}, nil
			}
		}
		return nil, nil
	},
	delete: func(ctx context.Context, c *call, _ string, state pmap) error {
		role, policy := str(state, "role"), str(state, "policyArn")
		_, err := c.aws().iam.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String(role), PolicyArn: aws.String(policy)})
		if err != nil && !isNotFound(err) {
			return fmt.Errorf("removing policy %s from IAM Role %s: %w", policy, role, err)
		}
		return nil
	},
}
