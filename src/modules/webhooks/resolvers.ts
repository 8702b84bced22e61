import type { Resolvers } from '../../generated/graphql.js';
import * as service from './service.js';

export const webhookResolvers: Resolvers = {
  Query: {
    webhookEndpoint: (_p, { id }, ctx) => service.findEndpoint(ctx, id),
  },
  Organization: {
    webhookEndpoints: (o, _a, ctx) => service.orgEndpoints(ctx, o.id),
  },
  Mutation: {
    createWebhookEndpoint: (_p, { input }, ctx) => service.createEndpoint(ctx, input),
    deleteWebhookEndpoint: (_p, { input }, ctx) => service.deleteEndpoint(ctx, input.id),
    enableWebhookEndpoint: (_p, { input }, ctx) => service.enableEndpoint(ctx, input.id),
  },
  WebhookEndpoint: {
    deliveries: (e, args, ctx) => service.deliveries(ctx, e, args),
  },
  WebhookDelivery: {
    status: (d) => (d.status === 'delivered' ? 'DELIVERED' : 'PENDING'),
    nextAttemptAt: (d) => (d.status === 'pending' ? d.nextAttemptAt : null),
    payload: (d) => JSON.parse(d.body),
  },
  WebhookDeliveryConnection: {
    nodes: (c) => c.edges.map((e) => e.node),
  },
};
