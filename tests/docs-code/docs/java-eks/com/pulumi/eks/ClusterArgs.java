package com.pulumi.eks;

import java.util.Map;

import com.pulumi.core.Output;
import com.pulumi.eks.enums.AuthenticationMode;
import com.pulumi.resources.ResourceArgs;

/** Compile-time stand-in for pulumi-eks 4.3.0's com.pulumi.eks.ClusterArgs: see Cluster. */
public final class ClusterArgs extends ResourceArgs {
    private AuthenticationMode authenticationMode;
    private Output<Boolean> createOidcProvider;
    private Output<String> name;
    private Output<Map<String, String>> nodeSecurityGroupTags;

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private final ClusterArgs args = new ClusterArgs();

        // Plain in pulumi-eks's schema: no Output overload.
        public Builder authenticationMode(AuthenticationMode authenticationMode) {
            args.authenticationMode = authenticationMode;
            return this;
        }

        public Builder createOidcProvider(Output<Boolean> createOidcProvider) {
            args.createOidcProvider = createOidcProvider;
            return this;
        }

        public Builder createOidcProvider(Boolean createOidcProvider) {
            return createOidcProvider(Output.of(createOidcProvider));
        }

        public Builder name(Output<String> name) {
            args.name = name;
            return this;
        }

        public Builder name(String name) {
            return name(Output.of(name));
        }

        public Builder nodeSecurityGroupTags(Output<Map<String, String>> nodeSecurityGroupTags) {
            args.nodeSecurityGroupTags = nodeSecurityGroupTags;
            return this;
        }

        public Builder nodeSecurityGroupTags(Map<String, String> nodeSecurityGroupTags) {
            return nodeSecurityGroupTags(Output.of(nodeSecurityGroupTags));
        }

        public ClusterArgs build() {
            return args;
        }
    }
}
