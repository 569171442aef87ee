import { ref, type JsonObject } from '../schema-ref';

const ISO_INSTANT = { type: 'string', format: 'date-time' };

/**
 * The answers of sign-in with OpenID providers: the providers a page offers, the authorization URL of a link, the
 * exchange of the return page's one-time code, and the identities an account has linked. Never a client secret,
 * a flow's verifier or nonce, a provider's tokens or the identity's subject.
 */
export function oidcSchemas(): Record<string, JsonObject> {
  return {
    OidcProviderList: {
      type: 'object',
      required: ['providers'],
      properties: {
        providers: {
          type: 'array',
          description: 'The configured providers, in the configuration’s order; empty when none is.',
          items: {
            type: 'object',
            required: ['id', 'name'],
            properties: {
              id: { type: 'string', description: 'What the routes name it by: `/oidc/{id}/start`.' },
              name: { type: 'string', description: 'For a button: “Continue with {name}”.' },
            },
          },
        },
      },
    },
    OidcLinkStart: {
      type: 'object',
      required: ['authorization_url'],
      properties: {
        authorization_url: {
          type: 'string',
          format: 'uri',
          description:
            'Navigate the browser there (a top-level navigation, so the flow cookie set with this answer goes ' +
            'with the provider’s redirect back).',
        },
      },
    },
    OidcIdentity: {
      type: 'object',
      required: ['id', 'provider', 'provider_name', 'email', 'linked_at', 'last_used_at', 'configured'],
      properties: {
        id: { type: 'string', format: 'uuid', description: 'What `DELETE /oidc/identities/{id}` names.' },
        provider: { type: 'string', description: 'The provider’s id when it was linked.' },
        provider_name: { type: 'string', description: 'Its name now, or its id when it is no longer configured.' },
        email: { type: ['string', 'null'], description: 'The address the provider gave when it was linked.' },
        linked_at: ISO_INSTANT,
        last_used_at: { ...ISO_INSTANT, type: ['string', 'null'] },
        configured: {
          type: 'boolean',
          description: 'False for a provider removed from the configuration: such an identity signs nobody in.',
        },
      },
    },
    OidcIdentityList: {
      type: 'object',
      required: ['identities'],
      properties: { identities: { type: 'array', items: ref('OidcIdentity') } },
    },
    OidcLinked: {
      type: 'object',
      required: ['linked'],
      properties: { linked: ref('OidcIdentity') },
    },
    OidcExchangeAnswer: {
      description:
        'What `POST /login` answers (a session, or the second-factor challenge), or, for a link flow, the identity ' +
        'now linked (`linked`): tell them apart by `access_token`, `second_factor_required` or `linked`.',
      oneOf: [ref('AccessToken'), ref('SecondFactorChallenge'), ref('OidcLinked')],
    },
  };
}
