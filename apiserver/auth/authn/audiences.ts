// Audiences of tokens that carry none of their own (static tokens, OIDC ID
// tokens): kube's WrapAudienceAgnosticToken. Such a token is good for the
// apiserver's own audiences only; asked for others, it is not recognised.
import type { Authenticated, TokenAuthenticator } from '../authenticator-types.ts';

/** `auth` answering for `apiAudiences` only, with the audiences it is good for. */
export function audienceAgnostic(auth: TokenAuthenticator, apiAudiences: string[]): TokenAuthenticator {
  return {
    name: auth.name,
    async authenticateToken(token: string, audiences: string[]): Promise<Authenticated | undefined> {
      const requested = audiences.length > 0 ? audiences : apiAudiences;
      const granted = apiAudiences.filter((a) => requested.includes(a));
      if (granted.length === 0) return undefined;
      const found = await auth.authenticateToken(token, audiences);
      return found ? { ...found, audiences: granted } : undefined;
    },
  };
}
