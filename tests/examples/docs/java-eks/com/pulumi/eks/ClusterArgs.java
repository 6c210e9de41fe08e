package com.pulumi.eks;

import com.pulumi.core.Output;
import com.pulumi.resources.ResourceArgs;

/** Compile-time stand-in for pulumi-eks 4.3.0's com.pulumi.eks.ClusterArgs: see Cluster. */
public final class ClusterArgs extends ResourceArgs {
    private Output<Boolean> createOidcProvider;

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private final ClusterArgs args = new ClusterArgs();

        public Builder createOidcProvider(Output<Boolean> createOidcProvider) {
            args.createOidcProvider = createOidcProvider;
            return this;
        }

        public Builder createOidcProvider(Boolean createOidcProvider) {
            return createOidcProvider(Output.of(createOidcProvider));
        }

        public ClusterArgs build() {
            return args;
        }
    }
}
