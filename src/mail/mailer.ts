// Outgoing e-mail behind a small interface: SMTP when configured, the log otherwise, and
// whatever tests need. Only the service sends mail; user code asks for it with $.send.email.
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
