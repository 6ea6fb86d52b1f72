create table reservation (sku varchar(64) not null);
