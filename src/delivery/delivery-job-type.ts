// The queue job type that carries out one delivery; its payload is { deliveryId }.
export const DELIVERY_JOB = "delivery";
