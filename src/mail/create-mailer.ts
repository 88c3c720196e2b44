import type { Logger } from "pino";
import type { Config } from "../config.js";
import { logMailer } from "./log-mailer.js";
import type { Mailer } from "./mailer.js";
import { smtpMailer } from "./smtp-mailer.js";

export function createMailer(config: Config, logger: Logger): Mailer {
  return config.smtpUrl ? smtpMailer(config.smtpUrl, config.smtpFrom) : logMailer(logger);
}
